//! Shared state handed to every handler.

use crate::{
    auth::{HostPolicy, RuntimeToken, WebAuth},
    runtime::{engine::Engine, git::GitCache, turns::TurnManager},
    store::Store,
};
use axum::extract::FromRef;
use leptos::config::LeptosOptions;
use protocol::Workbench;
use std::{net::SocketAddr, path::PathBuf, sync::Arc};
use tokio::sync::watch;

#[derive(Clone, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub runtime: Arc<RuntimeConfig>,
    /// Present in `codewhale web` mode only.
    pub web: Option<Arc<WebAuth>>,
    pub workbench: Workbench,
    pub store: Arc<Store>,
    pub turns: Arc<TurnManager>,
    pub git: Arc<GitCache>,
    /// The `Host` names requests may carry (DNS-rebinding defence).
    pub hosts: Arc<HostPolicy>,
    /// Flips to true when the server shuts down; long-lived streams end.
    pub shutdown: watch::Receiver<bool>,
}

/// How this process was started: what /v1/runtime/info reports and what
/// the auth middleware enforces.
pub struct RuntimeConfig {
    pub bind_host: String,
    pub port: u16,
    /// `None` only for an explicitly insecure loopback server.
    pub token: Option<RuntimeToken>,
    /// Extra CORS origins on top of the built-in allow-list.
    pub cors_origins: Vec<String>,
    /// Host names accepted besides the loopback names and the bind host
    /// (`--allowed-host`, `[runtime_api] allowed_hosts`).
    pub allowed_hosts: Vec<String>,
    /// Workspace of threads created without one.
    pub default_workspace: PathBuf,
    /// How long approvals, user input and client tool calls wait.
    pub wait_timeout: std::time::Duration,
    /// Token prices for usage reports.
    pub pricing: crate::pricing::Pricing,
}

impl AppState {
    /// Returns the state and the switch that ends its streams.
    pub fn new(
        runtime: RuntimeConfig,
        web: Option<WebAuth>,
        store: Arc<Store>,
        engine: Arc<dyn Engine>,
    ) -> (Self, watch::Sender<bool>) {
        let bind_address = format!("{}:{}", runtime.bind_host, runtime.port);
        let leptos_options = LeptosOptions::builder()
            .output_name(app::OUTPUT_NAME)
            .site_pkg_dir("pkg")
            .site_addr(
                bind_address
                    .parse::<SocketAddr>()
                    .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], runtime.port))),
            )
            .build();
        let workbench = Workbench {
            codewhale_version: env!("CARGO_PKG_VERSION").into(),
            bind_address,
            workspace: runtime.default_workspace.display().to_string(),
        };
        let wait_timeout = runtime.wait_timeout;
        let hosts = Arc::new(HostPolicy::new(&runtime.bind_host, &runtime.allowed_hosts));
        let (stop, shutdown) = watch::channel(false);
        let state = AppState {
            leptos_options,
            runtime: Arc::new(runtime),
            web: web.map(Arc::new),
            workbench,
            turns: Arc::new(
                TurnManager::new(store.clone(), engine).with_wait_timeout(wait_timeout),
            ),
            store,
            git: Arc::new(GitCache::default()),
            hosts,
            shutdown,
        };
        (state, stop)
    }
}
