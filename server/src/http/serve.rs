//! Binding and serving, shared by `codewhale web` and `codewhale app-server`.

use crate::{
    error::RunError,
    http::{router, state::AppState},
};
use axum_server::tls_rustls::RustlsConfig;
use std::net::SocketAddr;
use tokio::net::TcpListener;

pub async fn bind(host: &str, port: u16) -> Result<TcpListener, RunError> {
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

/// Serves until Ctrl+C or SIGTERM (over TLS when `tls` is given); then
/// ends open event streams so the graceful shutdown does not wait on them
/// forever.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    tls: Option<RustlsConfig>,
) -> Result<(), RunError> {
    let runtime = state.runtime.clone();
    let service = router::app(state).into_make_service_with_connect_info::<SocketAddr>();
    let stopping = runtime.clone();
    let result = match tls {
        None => axum::serve(listener, service)
            .with_graceful_shutdown(async move {
                shutdown_signal().await;
                stopping.stop_streams();
            })
            .await
            .map_err(RunError::Serve),
        Some(config) => {
            let handle = axum_server::Handle::new();
            let signal = handle.clone();
            tokio::spawn(async move {
                shutdown_signal().await;
                stopping.stop_streams();
                signal.graceful_shutdown(Some(std::time::Duration::from_secs(10)));
            });
            let listener = listener.into_std().map_err(RunError::Serve)?;
            axum_server::from_tcp_rustls(listener, config)
                .map_err(RunError::Serve)?
                .handle(handle)
                .serve(service)
                .await
                .map_err(RunError::Serve)
        }
    };
    runtime.close().await;
    result
}

/// Ctrl+C or SIGTERM.
async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
    eprintln!("codewhale: stopping");
}
