//! `POST /v1/approvals/{approval_id}`.

use crate::{
    error::ApiError,
    extract::{Json, Path},
    runtime::approvals::DecideApproval,
    state::AppState,
};
use axum::{extract::State, routing::post, Router};
use serde_json::Value;

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/approvals/{approval_id}", post(decide))
}

async fn decide(
    State(state): State<AppState>,
    Path(approval_id): Path<String>,
    Json(body): Json<DecideApproval>,
) -> Result<axum::Json<Value>, ApiError> {
    let approvals = state.turns.approvals();
    Ok(axum::Json(approvals.decide(&approval_id, body).await?))
}
