//! Turns: start, steer, interrupt, compact.

use crate::http::{
    error::ApiError,
    extract::{Json, Path},
    state::AppState,
};
use axum::{body::Bytes, extract::State, http::StatusCode, routing::post, Router};
use protocol::{CompactThread, StartTurn, SteerTurn, TurnRecord, TurnStarted};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/threads/{id}/turns", post(start))
        .route("/v1/threads/{id}/turns/{turn_id}/steer", post(steer))
        .route(
            "/v1/threads/{id}/turns/{turn_id}/interrupt",
            post(interrupt),
        )
        .route("/v1/threads/{id}/compact", post(compact))
}

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

async fn steer(
    State(state): State<AppState>,
    Path((id, turn_id)): Path<(String, String)>,
    Json(request): Json<SteerTurn>,
) -> Result<axum::Json<TurnRecord>, ApiError> {
    Ok(axum::Json(
        state.runtime.steer_turn(&id, &turn_id, request).await?,
    ))
}

async fn interrupt(
    State(state): State<AppState>,
    Path((id, turn_id)): Path<(String, String)>,
) -> Result<axum::Json<TurnRecord>, ApiError> {
    Ok(axum::Json(
        state.runtime.interrupt_turn(&id, &turn_id).await?,
    ))
}

/// 202: the compaction runs as a turn; follow it on the event stream.
/// The body is optional.
async fn compact(
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<(StatusCode, axum::Json<TurnStarted>), ApiError> {
    let request: CompactThread = if body.iter().all(u8::is_ascii_whitespace) {
        CompactThread::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::bad_request(format!("invalid JSON body: {e}")))?
    };
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(state.runtime.compact_thread(&id, request).await?),
    ))
}
