//! `codewhale web`: the browser workbench on 127.0.0.1.

use super::{current_dir, runtime_options};
use crate::{
    cli::WebArgs,
    clock::Clock,
    config::Config,
    error::RunError,
    home,
    http::{
        auth::{HostPolicy, RuntimeToken, WebAuth},
        cors,
        serve::{bind, serve},
        state::{AppState, EdgeOptions},
    },
    runtime::{approvals::DEFAULT_TIMEOUT, Runtime},
};
use std::sync::Arc;

pub async fn run(args: WebArgs) -> Result<(), RunError> {
    let token = RuntimeToken::resolve(args.auth_token)?;
    let home = home::resolve()?;
    let config = Config::load(&home)?;
    let cors_origins = cors::origins(&[], &config.runtime_api.cors_origins)?;
    let allowed_hosts =
        HostPolicy::configured(&args.allowed_hosts, &config.runtime_api.allowed_hosts)?;
    // Bind first: a second server on a busy port must not touch the store.
    let listener = bind(&args.host, args.port).await?;
    crate::http::router::warm_up();
    let port = listener.local_addr().map_err(RunError::Serve)?.port();
    let options = runtime_options(home, &config, current_dir()?, DEFAULT_TIMEOUT);
    let runtime = Arc::new(Runtime::open(options).await?);
    super::run_background(&runtime, &config);
    let (web, capability) = WebAuth::new("http", port, Clock::default());
    let launch_url = web.launch_url(&capability);
    let edge = EdgeOptions {
        bind_host: args.host.clone(),
        port,
        token: Some(token),
        web: Some(web),
        cors_origins,
        allowed_hosts,
        pairing: None,
        tls: false,
    };
    let state = AppState::new(runtime, edge);

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
    serve(listener, state, None).await
}
