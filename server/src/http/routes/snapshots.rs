//! Snapshots and taking turns back: `/v1/snapshots`,
//! `/v1/threads/{id}/snapshots[/restore]`, `/undo`, `/retry`,
//! `/edit-last-turn`, `/fork-at-user-message`. The rules are the
//! runtime's (`runtime/snapshots.rs`, `runtime/rewind.rs`).

use crate::http::{
    error::ApiError,
    extract::{Json, Path, Query},
    state::AppState,
};
use axum::{extract::State, http::StatusCode};
use protocol::{
    EditLastTurn, ErrorEnvelope, ForkAtUserMessage, ForkedAt, Rerun, RestoreSnapshot, Restored,
    RetryTurn, SnapshotRecord, Undone,
};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(of_thread))
        .routes(routes!(restore))
        .routes(routes!(undo))
        .routes(routes!(retry))
        .routes(routes!(edit_last_turn))
        .routes(routes!(fork_at_user_message))
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct SnapshotsQuery {
    /// 1–100; 20 when absent.
    pub limit: Option<u32>,
}

const CONFLICT: &str = "A turn is running on the thread (or on another thread in its workspace), the thread has no workspace, or files the \
    restore would change were changed since codewhale last recorded them (`error.conflicts` lists them); \
    nothing was changed";

/// Recent workspace snapshots, newest first (every workspace).
#[utoipa::path(get, path = "/v1/snapshots", tag = "snapshots", operation_id = "listSnapshots",
    params(SnapshotsQuery),
    responses((status = 200, description = "Snapshots, newest first", body = Vec<SnapshotRecord>)))]
async fn list(
    State(state): State<AppState>,
    Query(query): Query<SnapshotsQuery>,
) -> Result<axum::Json<Vec<SnapshotRecord>>, ApiError> {
    Ok(axum::Json(state.runtime.snapshots(query.limit).await?))
}

/// The thread's snapshots, newest first: before and after each turn that
/// changed files, around each restore, and where a fork started.
#[utoipa::path(get, path = "/v1/threads/{id}/snapshots", tag = "snapshots", operation_id = "listThreadSnapshots",
    params(("id" = String, Path, description = "Thread id"), SnapshotsQuery),
    responses(
        (status = 200, description = "Snapshots, newest first", body = Vec<SnapshotRecord>),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = "The thread has no workspace", body = ErrorEnvelope)))]
async fn of_thread(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<SnapshotsQuery>,
) -> Result<axum::Json<Vec<SnapshotRecord>>, ApiError> {
    Ok(axum::Json(
        state.runtime.thread_snapshots(&id, query.limit).await?,
    ))
}

/// Puts a snapshot's files back (compare-and-swap: every path it changes
/// must be as codewhale last recorded it). The restore is recorded too,
/// so restoring `before` takes it back.
#[utoipa::path(post, path = "/v1/threads/{id}/snapshots/restore", tag = "snapshots", operation_id = "restoreSnapshot",
    params(("id" = String, Path, description = "Thread id")),
    request_body = RestoreSnapshot,
    responses(
        (status = 200, description = "What was restored", body = Restored),
        (status = 404, description = "No such thread or snapshot", body = ErrorEnvelope),
        (status = 409, description = CONFLICT, body = ErrorEnvelope)))]
async fn restore(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<RestoreSnapshot>,
) -> Result<axum::Json<Restored>, ApiError> {
    Ok(axum::Json(
        state.runtime.restore_snapshot(&id, request).await?,
    ))
}

/// Takes the last turn back: its files as they were before it (same
/// compare-and-swap) and its messages out of what the model sees.
#[utoipa::path(post, path = "/v1/threads/{id}/undo", tag = "snapshots", operation_id = "undoTurn",
    params(("id" = String, Path, description = "Thread id")),
    responses(
        (status = 200, description = "The turn taken back", body = Undone),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = CONFLICT, body = ErrorEnvelope)))]
async fn undo(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<Undone>, ApiError> {
    Ok(axum::Json(state.runtime.undo(&id).await?))
}

/// Takes the last turn back and sends its prompt again (optionally on
/// another model).
#[utoipa::path(post, path = "/v1/threads/{id}/retry", tag = "snapshots", operation_id = "retryTurn",
    params(("id" = String, Path, description = "Thread id")),
    request_body = RetryTurn,
    responses(
        (status = 201, description = "The turn taken back and the new one", body = Rerun),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = CONFLICT, body = ErrorEnvelope)))]
async fn retry(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<RetryTurn>,
) -> Result<(StatusCode, axum::Json<Rerun>), ApiError> {
    let rerun = state.runtime.retry(&id, request).await?;
    Ok((StatusCode::CREATED, axum::Json(rerun)))
}

/// Takes the last turn back and sends `prompt` in its place.
#[utoipa::path(post, path = "/v1/threads/{id}/edit-last-turn", tag = "snapshots", operation_id = "editLastTurn",
    params(("id" = String, Path, description = "Thread id")),
    request_body = EditLastTurn,
    responses(
        (status = 201, description = "The turn taken back and the new one", body = Rerun),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = CONFLICT, body = ErrorEnvelope)))]
async fn edit_last_turn(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<EditLastTurn>,
) -> Result<(StatusCode, axum::Json<Rerun>), ApiError> {
    let rerun = state.runtime.edit_last_turn(&id, request).await?;
    Ok((StatusCode::CREATED, axum::Json(rerun)))
}

/// A new thread whose history ends just before the given user message,
/// with the workspace as it was there as a snapshot to restore.
#[utoipa::path(post, path = "/v1/threads/{id}/fork-at-user-message", tag = "snapshots", operation_id = "forkAtUserMessage",
    params(("id" = String, Path, description = "Thread id")),
    request_body = ForkAtUserMessage,
    responses(
        (status = 201, description = "The new thread and its starting snapshot", body = ForkedAt),
        (status = 404, description = "No such thread, or no such item in it", body = ErrorEnvelope),
        (status = 409, description = "The item is not a user message", body = ErrorEnvelope)))]
async fn fork_at_user_message(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<ForkAtUserMessage>,
) -> Result<(StatusCode, axum::Json<ForkedAt>), ApiError> {
    let forked = state.runtime.fork_at_user_message(&id, request).await?;
    Ok((StatusCode::CREATED, axum::Json(forked)))
}
