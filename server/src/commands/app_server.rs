//! `codewhale app-server --http` (and its alias `codewhale serve --http`):
//! the runtime API for SDKs, scripts and other local clients.

use super::{current_dir, runtime_options};
use crate::{
    cli::HttpArgs,
    config::Config,
    error::RunError,
    home,
    http::{
        auth::{HostPolicy, RuntimeToken},
        cors,
        serve::{bind, serve},
        state::{AppState, EdgeOptions},
    },
    runtime::{approvals::DEFAULT_TIMEOUT, Runtime},
};
use std::{net::IpAddr, sync::Arc};

pub async fn run(args: HttpArgs, insecure: bool) -> Result<(), RunError> {
    let workers = args.worker_threads();
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
    let listener = bind(&args.host, args.port).await?;
    let port = listener.local_addr().map_err(RunError::Serve)?.port();
    let options = runtime_options(home.clone(), &config, current_dir()?, DEFAULT_TIMEOUT);
    let runtime = Arc::new(Runtime::open(options).await?);
    let edge = EdgeOptions {
        bind_host: args.host.clone(),
        port,
        token,
        web: None,
        cors_origins,
        allowed_hosts,
    };
    let state = AppState::new(runtime, edge);
    let url = format!("http://{}:{port}", url_host(&args.host));
    #[allow(clippy::print_stdout)]
    {
        println!("{url}");
    }
    eprintln!(
        "codewhale app-server: runtime API on {url}/v1 (store {}, {} workers{})",
        home.display(),
        workers,
        if insecure { ", NO AUTH" } else { "" }
    );
    serve(listener, state).await
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
