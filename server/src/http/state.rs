//! What every handler can reach: the runtime, the gate the auth layers
//! enforce, and the facts of this server.

use crate::{
    http::{
        auth::{Gate, HostPolicy, RuntimeToken, WebAuth},
        pairing::PairingLinks,
    },
    runtime::Runtime,
};
use axum::extract::FromRef;
use leptos::config::LeptosOptions;
use protocol::Workbench;
use std::{net::SocketAddr, sync::Arc};

/// Cloned for every handler that takes `State<AppState>`, so every field is
/// an `Arc` (`LeptosOptions` alone is a dozen strings).
#[derive(Clone)]
pub struct AppState {
    pub leptos_options: Arc<LeptosOptions>,
    pub runtime: Arc<Runtime>,
    pub gate: Arc<Gate>,
    pub listen: Arc<Listen>,
    /// Shared: the state is cloned several times per request, and this
    /// holds three strings.
    pub workbench: Arc<Workbench>,
    /// `--mobile` only: how pairing links reach this server.
    pub pairing: Option<Arc<PairingLinks>>,
}

/// Where this server listens, as `/v1/runtime/info` reports it.
pub struct Listen {
    pub bind_host: String,
    pub port: u16,
}

/// How the HTTP edge is set up, besides the runtime.
pub struct EdgeOptions {
    pub bind_host: String,
    pub port: u16,
    /// `None` only for an explicitly insecure loopback server.
    pub token: Option<RuntimeToken>,
    /// Present in `codewhale web` mode only.
    pub web: Option<WebAuth>,
    /// CORS origins (built-in plus configured; `cors::origins`).
    pub cors_origins: Vec<String>,
    /// Host names accepted besides the loopback names and the bind host
    /// (`--allowed-host`, `[runtime_api] allowed_hosts`).
    pub allowed_hosts: Vec<String>,
    /// Present in `--mobile` mode only.
    pub pairing: Option<PairingLinks>,
    /// Served over TLS: origins are https and the session cookie Secure.
    pub tls: bool,
}

impl AppState {
    pub fn new(runtime: Arc<Runtime>, edge: EdgeOptions) -> Self {
        let bind_address = format!("{}:{}", edge.bind_host, edge.port);
        let leptos_options = LeptosOptions::builder()
            .output_name(app::OUTPUT_NAME)
            .site_pkg_dir(crate::http::assets::PKG_DIR)
            // Leptos reads a lazy-route manifest from disk under the site
            // root (and panics on a malformed one). codewhale's site is
            // embedded and writes none; the default root, target/site, is
            // relative to the working directory: the user's repository.
            .site_root(runtime.home().join("site").display().to_string())
            .site_addr(
                bind_address
                    .parse::<SocketAddr>()
                    .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], edge.port))),
            )
            .build();
        let workbench = Arc::new(Workbench {
            codewhale_version: env!("CARGO_PKG_VERSION").into(),
            bind_address,
            workspace: runtime.default_workspace().display().to_string(),
            mobile: edge.pairing.is_some(),
        });
        let gate = Gate {
            hosts: HostPolicy::new(&edge.bind_host, &edge.allowed_hosts),
            token: edge.token,
            web: edge.web,
            cors_origins: edge.cors_origins,
            mobile: edge.pairing.is_some(),
            scheme: if edge.tls { "https" } else { "http" },
            attempts: Default::default(),
        };
        AppState {
            leptos_options: Arc::new(leptos_options),
            runtime,
            gate: Arc::new(gate),
            listen: Arc::new(Listen {
                bind_host: edge.bind_host,
                port: edge.port,
            }),
            workbench,
            pairing: edge.pairing.map(Arc::new),
        }
    }
}

/// The page renderer's options (page requests only).
impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        (*state.leptos_options).clone()
    }
}
