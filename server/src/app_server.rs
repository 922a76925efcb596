//! `codewhale app-server --http` (and its alias `codewhale serve --http`):
//! the runtime API for SDKs, scripts and other local clients.

use crate::{
    agent::Agent,
    auth::{HostPolicy, RuntimeToken},
    cli::HttpArgs,
    config::Config,
    cors,
    error::RunError,
    home, server,
    state::{AppState, RuntimeConfig},
    store::Store,
};
use std::{net::IpAddr, sync::Arc};

pub async fn run(args: HttpArgs, insecure: bool) -> Result<(), RunError> {
    let loopback = is_loopback(&args.host);
    if insecure && !loopback {
        return Err(RunError::Config(format!(
            "no-auth mode is only allowed on a loopback bind (got --host {}); use --auth-token instead",
            args.host
        )));
    }
    let token = if insecure {
        None
    } else {
        let explicit = args.auth_token.is_some()
            || ["CODEWHALE_RUNTIME_TOKEN", "DEEPSEEK_RUNTIME_TOKEN"]
                .iter()
                .any(|v| std::env::var(v).is_ok_and(|t| !t.trim().is_empty()));
        if !explicit {
            eprintln!(
                "codewhale: no runtime token given; /v1 is locked with a generated token that is never shown. \
                 Pass --auth-token or set CODEWHALE_RUNTIME_TOKEN to use the API."
            );
        }
        Some(RuntimeToken::resolve(args.auth_token)?)
    };
    let home = home::resolve()?;
    let config = Config::load(&home)?;
    let cors_origins = cors::origins(&args.cors_origins, &config.runtime_api.cors_origins)?;
    let allowed_hosts =
        HostPolicy::configured(&args.allowed_hosts, &config.runtime_api.allowed_hosts)?;
    // A name other than loopback (a tunnel's, say) would carry requests from
    // elsewhere to a server that asks nobody for a token.
    if insecure && !HostPolicy::only_loopback(&allowed_hosts) {
        return Err(RunError::Config(
            "no-auth mode only answers to loopback names; drop --allowed-host (and \
             [runtime_api] allowed_hosts) or use --auth-token instead"
                .into(),
        ));
    }
    let store = Arc::new(Store::open(&home).await?);
    let listener = server::bind(&args.host, args.port).await?;
    let port = listener.local_addr().map_err(RunError::Serve)?.port();
    let workers = args.workers.clamp(1, 8);
    let runtime = RuntimeConfig {
        bind_host: args.host.clone(),
        port,
        token,
        cors_origins,
        allowed_hosts,
        default_workspace: std::env::current_dir().map_err(|e| RunError::Config(e.to_string()))?,
        wait_timeout: crate::runtime::approvals::DEFAULT_TIMEOUT,
        pricing: crate::pricing::Pricing::from_config(&config),
    };
    let (state, stop) = AppState::new(runtime, None, store, Arc::new(Agent::from_config(&config)));
    let url = format!("http://{}:{port}", url_host(&args.host));
    #[allow(clippy::print_stdout)]
    {
        println!("{url}");
    }
    eprintln!(
        "codewhale app-server: runtime API on {url}/v1 (store {}, {workers} workers{})",
        home.display(),
        if insecure { ", NO AUTH" } else { "" }
    );
    server::serve(listener, state, stop).await
}

fn is_loopback(host: &str) -> bool {
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn url_host(host: &str) -> String {
    if host.parse::<std::net::Ipv6Addr>().is_ok() {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}
