//! `POST /v1/approvals/{approval_id}`.

use crate::http::{
    error::ApiError,
    extract::{Json, Path},
    state::AppState,
};
use axum::{extract::State, routing::post, Router};
use protocol::{ApprovalDecided, DecideApproval};

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/approvals/{approval_id}", post(decide))
}

async fn decide(
    State(state): State<AppState>,
    Path(approval_id): Path<String>,
    Json(body): Json<DecideApproval>,
) -> Result<axum::Json<ApprovalDecided>, ApiError> {
    let decided = state.runtime.decide_approval(&approval_id, body).await?;
    Ok(axum::Json(decided))
}
