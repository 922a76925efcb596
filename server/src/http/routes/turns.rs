//! Turns: start, steer, interrupt, compact.

use crate::http::{
    error::ApiError,
    extract::{Json, Path},
    state::AppState,
};
use axum::{body::Bytes, extract::State, http::StatusCode};
use protocol::{CompactThread, ErrorEnvelope, StartTurn, SteerTurn, TurnRecord, TurnStarted};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(start))
        .routes(routes!(steer))
        .routes(routes!(interrupt))
        .routes(routes!(compact))
}

/// Starts a turn; follow it on the thread's event stream.
#[utoipa::path(post, path = "/v1/threads/{id}/turns", tag = "turns", operation_id = "startTurn",
    params(("id" = String, Path, description = "Thread id")),
    request_body = StartTurn,
    responses(
        (status = 201, description = "The turn, queued", body = TurnStarted),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = "The thread already has a turn running; or its model provider is not usable as configured (unknown, no API key, no model); or dynamic tool names clash (twice, with a built-in tool) or, with the thread's, are too many", body = ErrorEnvelope)))]
async fn start(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<StartTurn>,
) -> Result<(StatusCode, axum::Json<TurnStarted>), ApiError> {
    Ok((
        StatusCode::CREATED,
        axum::Json(state.runtime.start_turn(&id, request).await?),
    ))
}

/// Adds a message to a running turn; the model reads it at its next step.
#[utoipa::path(post, path = "/v1/threads/{id}/turns/{turn_id}/steer", tag = "turns", operation_id = "steerTurn",
    params(("id" = String, Path, description = "Thread id"), ("turn_id" = String, Path, description = "Turn id")),
    request_body = SteerTurn,
    responses(
        (status = 200, description = "The turn", body = TurnRecord),
        (status = 404, description = "No such turn in this thread", body = ErrorEnvelope),
        (status = 409, description = "The turn is not running", body = ErrorEnvelope)))]
async fn steer(
    State(state): State<AppState>,
    Path((id, turn_id)): Path<(String, String)>,
    Json(request): Json<SteerTurn>,
) -> Result<axum::Json<TurnRecord>, ApiError> {
    Ok(axum::Json(
        state.runtime.steer_turn(&id, &turn_id, request).await?,
    ))
}

/// Asks a running turn to stop; `turn.completed` (interrupted) follows.
#[utoipa::path(post, path = "/v1/threads/{id}/turns/{turn_id}/interrupt", tag = "turns", operation_id = "interruptTurn",
    params(("id" = String, Path, description = "Thread id"), ("turn_id" = String, Path, description = "Turn id")),
    responses(
        (status = 200, description = "The turn", body = TurnRecord),
        (status = 404, description = "No such turn in this thread", body = ErrorEnvelope),
        (status = 409, description = "The turn is not running", body = ErrorEnvelope)))]
async fn interrupt(
    State(state): State<AppState>,
    Path((id, turn_id)): Path<(String, String)>,
) -> Result<axum::Json<TurnRecord>, ApiError> {
    Ok(axum::Json(
        state.runtime.interrupt_turn(&id, &turn_id).await?,
    ))
}

/// 202: the compaction runs as a turn; follow it on the event stream.
/// The body is optional: none, blank or JSON `null` are the defaults.
#[utoipa::path(post, path = "/v1/threads/{id}/compact", tag = "turns", operation_id = "compactThread",
    params(("id" = String, Path, description = "Thread id")),
    request_body(content = Option<CompactThread>, description = "Optional; an empty body is fine"),
    responses(
        (status = 202, description = "The compaction turn, queued", body = TurnStarted),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = "The thread already has a turn running, or its model provider is not usable as configured", body = ErrorEnvelope)))]
async fn compact(
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<(StatusCode, axum::Json<TurnStarted>), ApiError> {
    let invalid = |e: serde_json::Error| ApiError::bad_request(format!("invalid JSON body: {e}"));
    let request: CompactThread = if body.iter().all(u8::is_ascii_whitespace) {
        CompactThread::default()
    } else {
        match serde_json::from_slice(&body).map_err(invalid)? {
            serde_json::Value::Null => CompactThread::default(),
            object @ serde_json::Value::Object(_) => {
                serde_json::from_value(object).map_err(invalid)?
            }
            _ => {
                return Err(ApiError::bad_request(
                    "the body must be a JSON object or null",
                ))
            }
        }
    };
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(state.runtime.compact_thread(&id, request).await?),
    ))
}
