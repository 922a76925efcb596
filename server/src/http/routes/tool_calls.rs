//! `POST /v1/threads/{id}/turns/{turn_id}/tool-calls/{call_id}/result`:
//! a client returns what its tool produced. 202 means durably accepted,
//! not that the model has read it.

use crate::http::{
    error::ApiError,
    extract::{Json, Path},
    state::AppState,
};
use axum::{extract::State, http::StatusCode, routing::post, Router};
use protocol::{DynamicToolResult, ToolResultAccepted};

pub fn router() -> Router<AppState> {
    Router::new().route(
        "/v1/threads/{id}/turns/{turn_id}/tool-calls/{call_id}/result",
        post(submit),
    )
}

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
