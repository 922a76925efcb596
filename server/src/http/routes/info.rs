//! Public, secret-free runtime endpoints: `/health` and `/v1/runtime/info`.

use crate::http::{error::ApiError, state::AppState};
use axum::{extract::State, http::Uri, routing::get, Json, Router};
use protocol::{Capabilities, Health, RuntimeInfo, RUNTIME_API_VERSION, SERVICE_NAME};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/health", get(health))
        .route("/v1/runtime/info", get(runtime_info))
        .route("/v1", get(unknown_v1_route))
        .route("/v1/{*rest}", axum::routing::any(unknown_v1_route))
}

async fn health() -> Json<Health> {
    Json(Health::ok())
}

async fn runtime_info(State(state): State<AppState>) -> Json<RuntimeInfo> {
    let version = env!("CARGO_PKG_VERSION").to_string();
    Json(RuntimeInfo {
        service: SERVICE_NAME.into(),
        runtime_api_version: RUNTIME_API_VERSION.into(),
        codewhale_version: version.clone(),
        version,
        bind_host: state.listen.bind_host.clone(),
        port: state.listen.port,
        auth_required: state.gate.token.is_some(),
        transports: vec!["http".into(), "sse".into()],
        capabilities: Capabilities {
            // This server's, not the build's: phones pair only with --mobile.
            mobile: state.gate.mobile,
            ..Capabilities::current()
        },
    })
}

/// Authenticated callers asking for a route this build does not have.
async fn unknown_v1_route(uri: Uri) -> ApiError {
    ApiError::NotFound(format!("no such runtime API route: {}", uri.path()))
}
