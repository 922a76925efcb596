//! `/v1/diagnostics`: reports safe to share.

use crate::http::{error::ApiError, state::AppState};
use axum::extract::State;
use protocol::ConfigDiagnostics;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(config))
}

/// Where the configuration comes from, which layer set each key, and what
/// is wrong with it: keys, layers and line numbers, never a value.
#[utoipa::path(get, path = "/v1/diagnostics/config", tag = "diagnostics", operation_id = "configDiagnostics",
    responses((status = 200, description = "The report", body = ConfigDiagnostics)))]
async fn config(State(state): State<AppState>) -> Result<axum::Json<ConfigDiagnostics>, ApiError> {
    Ok(axum::Json(state.runtime.config_diagnostics().await?))
}
