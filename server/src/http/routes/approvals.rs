//! `POST /v1/approvals/{approval_id}`.

use crate::http::{
    error::ApiError,
    extract::{Json, Path},
    state::AppState,
};
use axum::extract::State;
use protocol::{ApprovalDecided, DecideApproval, ErrorEnvelope};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(decide))
}

/// Answers an `approval.required`; `approval.decided` records it.
#[utoipa::path(post, path = "/v1/approvals/{approval_id}", tag = "approvals", operation_id = "decideApproval",
    params(("approval_id" = String, Path, description = "From `approval.required`")),
    request_body = DecideApproval,
    responses(
        (status = 200, description = "Recorded", body = ApprovalDecided),
        (status = 404, description = "No pending approval with this id (unknown or already settled)", body = ErrorEnvelope)))]
async fn decide(
    State(state): State<AppState>,
    Path(approval_id): Path<String>,
    Json(body): Json<DecideApproval>,
) -> Result<axum::Json<ApprovalDecided>, ApiError> {
    let decided = state.runtime.decide_approval(&approval_id, body).await?;
    Ok(axum::Json(decided))
}
