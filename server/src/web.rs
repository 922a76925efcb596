//! `codewhale web`: the browser workbench on 127.0.0.1.

use crate::{
    agent::Agent,
    auth::{HostPolicy, RuntimeToken, WebAuth},
    cli::WebArgs,
    clock::Clock,
    config::Config,
    cors,
    error::RunError,
    home, server,
    state::{AppState, RuntimeConfig},
    store::Store,
};
use std::sync::Arc;

pub async fn run(args: WebArgs) -> Result<(), RunError> {
    let token = RuntimeToken::resolve(args.auth_token)?;
    let home = home::resolve()?;
    let config = Config::load(&home)?;
    let store = Arc::new(Store::open(&home).await?);
    let listener = server::bind(&args.host, args.port).await?;
    let port = listener.local_addr().map_err(RunError::Serve)?.port();
    let (web, capability) = WebAuth::new(port, Clock::default());
    let launch_url = web.launch_url(&capability);
    let runtime = RuntimeConfig {
        bind_host: args.host.clone(),
        port,
        token: Some(token),
        cors_origins: cors::origins(&[], &config.runtime_api.cors_origins)?,
        allowed_hosts: HostPolicy::configured(
            &args.allowed_hosts,
            &config.runtime_api.allowed_hosts,
        )?,
        default_workspace: std::env::current_dir().map_err(|e| RunError::Config(e.to_string()))?,
        wait_timeout: crate::runtime::approvals::DEFAULT_TIMEOUT,
        pricing: crate::pricing::Pricing::from_config(&config),
    };
    let (state, stop) = AppState::new(
        runtime,
        Some(web),
        store,
        Arc::new(Agent::from_config(&config)),
    );

    // The one line on stdout: the sign-in link.
    #[allow(clippy::print_stdout)]
    {
        println!("{launch_url}");
    }
    eprintln!(
        "codewhale web is serving http://{}:{port}/ — open the link above to sign in (it works once, for 10 minutes). Ctrl+C stops it.",
        args.host
    );
    if !args.no_open {
        crate::child::open::browser(launch_url);
    }
    server::serve(listener, state, stop).await
}
