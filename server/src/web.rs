//! `codewhale web`: the browser workbench on 127.0.0.1.

use crate::{
    auth::{RuntimeToken, WebAuth},
    cli::WebArgs,
    error::RunError,
    router,
    state::{AppState, RuntimeConfig},
};
use app::protocol::Workbench;
use leptos::config::LeptosOptions;
use std::{net::SocketAddr, sync::Arc};
use tokio::net::TcpListener;

pub async fn run(args: WebArgs) -> Result<(), RunError> {
    let token = RuntimeToken::resolve(args.auth_token)?;
    let listener = bind(&args.host, args.port).await?;
    let port = listener.local_addr().map_err(RunError::Serve)?.port();
    let (web, capability) = WebAuth::new(port);
    let launch_url = web.launch_url(&capability);
    let state = app_state(&args.host, port, Some(token), Some(web));

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
        open_browser(launch_url);
    }

    let service = router::app(state).into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, service)
        .with_graceful_shutdown(shutdown_signal())
        .await
        .map_err(RunError::Serve)
}

pub fn app_state(
    host: &str,
    port: u16,
    token: Option<RuntimeToken>,
    web: Option<WebAuth>,
) -> AppState {
    let bind_address = format!("{host}:{port}");
    let leptos_options = LeptosOptions::builder()
        .output_name(app::OUTPUT_NAME)
        .site_pkg_dir("pkg")
        .site_addr(
            bind_address
                .parse::<SocketAddr>()
                .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], port))),
        )
        .build();
    let workspace = std::env::current_dir()
        .map(|dir| dir.display().to_string())
        .unwrap_or_else(|_| "(unknown)".into());
    AppState {
        leptos_options,
        runtime: Arc::new(RuntimeConfig {
            bind_host: host.to_string(),
            port,
            token,
        }),
        web: web.map(Arc::new),
        workbench: Workbench {
            codewhale_version: env!("CARGO_PKG_VERSION").into(),
            bind_address,
            workspace,
        },
    }
}

async fn bind(host: &str, port: u16) -> Result<TcpListener, RunError> {
    TcpListener::bind((host, port)).await.map_err(|source| {
        if source.kind() == std::io::ErrorKind::AddrInUse {
            RunError::PortInUse {
                host: host.to_string(),
                port,
            }
        } else {
            RunError::Bind {
                host: host.to_string(),
                port,
                source,
            }
        }
    })
}

/// Hands the link to the OS opener off the async runtime. A missing or
/// failing opener only means the user opens the printed link themselves.
fn open_browser(url: String) {
    std::thread::spawn(move || {
        if let Err(error) = open::that_detached(&url) {
            tracing::warn!(%error, "could not open a browser; open the printed link yourself");
        }
    });
}

async fn shutdown_signal() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
    eprintln!("codewhale web: stopping");
}
