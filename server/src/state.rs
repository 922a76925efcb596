//! Shared state handed to every handler.

use crate::auth::{RuntimeToken, WebAuth};
use app::protocol::Workbench;
use axum::extract::FromRef;
use leptos::config::LeptosOptions;
use std::sync::Arc;

#[derive(Clone, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub runtime: Arc<RuntimeConfig>,
    /// Present in `codewhale web` mode only.
    pub web: Option<Arc<WebAuth>>,
    pub workbench: Workbench,
}

/// How this process was started: what /v1/runtime/info reports and what
/// the auth middleware enforces.
pub struct RuntimeConfig {
    pub bind_host: String,
    pub port: u16,
    /// `None` only for an explicitly insecure loopback server (not yet offered).
    pub token: Option<RuntimeToken>,
}
