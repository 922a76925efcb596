//! Public, secret-free runtime endpoints: `/health` and `/v1/runtime/info`.

use crate::http::{error::ApiError, state::AppState};
use axum::{extract::State, http::Uri, Json, Router};
use protocol::{Capabilities, Health, RuntimeInfo, RUNTIME_API_VERSION, SERVICE_NAME};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(health))
        .routes(routes!(runtime_info))
        .routes(routes!(openapi_document))
}

/// Any other `/v1` path is a JSON 404, never a page. Not an operation, so
/// not in the document.
pub fn unknown_routes() -> Router<AppState> {
    Router::new()
        .route("/v1", axum::routing::any(unknown_v1_route))
        .route("/v1/{*rest}", axum::routing::any(unknown_v1_route))
}

/// Liveness. Public.
#[utoipa::path(get, path = "/health", tag = "runtime", operation_id = "health", security(()),
    responses((status = 200, description = "Up", body = Health)))]
async fn health() -> Json<Health> {
    Json(Health::ok())
}

/// What this process is and can do. Public and secret-free; clients check
/// `capabilities` before using a feature.
#[utoipa::path(get, path = "/v1/runtime/info", tag = "runtime", operation_id = "getRuntimeInfo", security(()),
    responses((status = 200, description = "The runtime", body = RuntimeInfo)))]
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

/// This document (OpenAPI 3.1), generated from the code of the running
/// build. Public and secret-free, like `/v1/runtime/info`.
#[utoipa::path(get, path = "/v1/openapi.json", tag = "runtime", operation_id = "getOpenApiDocument", security(()),
    responses((status = 200, description = "The OpenAPI document", content_type = "application/json", body = Object)))]
async fn openapi_document() -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        crate::http::openapi::document_json(),
    )
        .into_response()
}
