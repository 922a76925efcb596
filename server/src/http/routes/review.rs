//! Review findings applied and reverted: `/v1/threads/{id}/review/apply`
//! and `/review/revert`. The rules are the runtime's (`runtime/review.rs`).

use crate::http::{
    error::ApiError,
    extract::{Json, Path},
    state::AppState,
};
use axum::{extract::State, http::StatusCode};
use protocol::{ApplyReview, ErrorEnvelope, RevertReview, ReviewApplied, ReviewReverted};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(apply))
        .routes(routes!(revert))
}

/// Starts a turn that applies the findings through the normal edit,
/// approval and snapshot path (agent mode for that turn when the thread is
/// in review mode); a `review_action` item opens it.
#[utoipa::path(post, path = "/v1/threads/{id}/review/apply", tag = "review", operation_id = "applyReview",
    params(("id" = String, Path, description = "Thread id")),
    request_body = ApplyReview,
    responses(
        (status = 201, description = "The action and the turn applying it", body = ReviewApplied),
        (status = 404, description = "No such thread, or a finding is not in it", body = ErrorEnvelope),
        (status = 409, description = "A turn is running, the thread has no workspace or no usable model, \
            an item is not a recorded finding, or a finding is already applied", body = ErrorEnvelope)))]
async fn apply(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<ApplyReview>,
) -> Result<(StatusCode, axum::Json<ReviewApplied>), ApiError> {
    let applied = state.runtime.apply_review(&id, request).await?;
    Ok((StatusCode::CREATED, axum::Json(applied)))
}

/// Puts back the files the action's turn changed, if each is still as
/// that turn left it (`error.conflicts` lists those that are not; nothing
/// changes then). Never `git checkout`. The restore is recorded, so it can
/// be taken back too.
#[utoipa::path(post, path = "/v1/threads/{id}/review/revert", tag = "review", operation_id = "revertReview",
    params(("id" = String, Path, description = "Thread id")),
    request_body = RevertReview,
    responses(
        (status = 200, description = "The action, marked reverted, and what was restored", body = ReviewReverted),
        (status = 404, description = "No such thread, or the action is not in it", body = ErrorEnvelope),
        (status = 409, description = "A turn is running, the action was reverted or undone already, its turn \
            changed nothing, or files it changed were changed since (listed in `error.conflicts`)", body = ErrorEnvelope)))]
async fn revert(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<RevertReview>,
) -> Result<axum::Json<ReviewReverted>, ApiError> {
    Ok(axum::Json(state.runtime.revert_review(&id, request).await?))
}
