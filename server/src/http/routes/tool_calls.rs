//! `POST /v1/threads/{id}/turns/{turn_id}/tool-calls/{call_id}/result`:
//! a client returns what its tool produced. 202 means durably accepted,
//! not that the model has read it.

use crate::http::{
    error::ApiError,
    extract::{Json, Path},
    state::AppState,
};
use axum::{extract::State, http::StatusCode};
use protocol::{DynamicToolResult, ErrorEnvelope, ToolResultAccepted};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(submit))
}

/// The result of a client-executed tool (`tool_call.requested`). Exactly
/// one result per call is accepted.
#[utoipa::path(post, path = "/v1/threads/{id}/turns/{turn_id}/tool-calls/{call_id}/result", tag = "tool-calls", operation_id = "submitToolResult",
    params(
        ("id" = String, Path, description = "Thread id"),
        ("turn_id" = String, Path, description = "Turn id"),
        ("call_id" = String, Path, description = "From `tool_call.requested`")),
    request_body = DynamicToolResult,
    responses(
        (status = 202, description = "Durably accepted (`tool_call.resolved` is written)", body = ToolResultAccepted),
        (status = 404, description = "No such pending call on this route (unknown, or already settled)", body = ErrorEnvelope)))]
async fn submit(
    State(state): State<AppState>,
    Path((id, turn_id, call_id)): Path<(String, String, String)>,
    Json(result): Json<DynamicToolResult>,
) -> Result<(StatusCode, axum::Json<ToolResultAccepted>), ApiError> {
    let accepted = state
        .runtime
        .submit_tool_result(&id, &turn_id, &call_id, result)
        .await?;
    Ok((StatusCode::ACCEPTED, axum::Json(accepted)))
}
