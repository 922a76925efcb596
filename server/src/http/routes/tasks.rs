//! `/v1/tasks`: turns queued to run with no client attached.

use crate::http::{
    error::ApiError,
    extract::{Json, Path, Query},
    state::AppState,
};
use axum::{extract::State, http::StatusCode};
use protocol::{CreateTask, ErrorEnvelope, ListTasks, TaskRecord, TasksCleared};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(detail))
        .routes(routes!(cancel))
        .routes(routes!(clear))
}

/// Tasks, newest first.
#[utoipa::path(get, path = "/v1/tasks", tag = "tasks", operation_id = "listTasks",
    params(ListTasks),
    responses(
        (status = 200, description = "The tasks", body = Vec<TaskRecord>),
        (status = 400, description = "A bad status or limit", body = ErrorEnvelope)))]
async fn list(
    State(state): State<AppState>,
    Query(query): Query<ListTasks>,
) -> Result<axum::Json<Vec<TaskRecord>>, ApiError> {
    Ok(axum::Json(state.runtime.list_tasks(query).await?))
}

/// Queues a task: a turn on a new thread, or on `thread_id`.
#[utoipa::path(post, path = "/v1/tasks", tag = "tasks", operation_id = "createTask",
    request_body = CreateTask,
    responses(
        (status = 201, description = "Queued", body = TaskRecord),
        (status = 400, description = "An empty prompt, a blank model, or a workspace given with `thread_id`", body = ErrorEnvelope),
        (status = 404, description = "No such thread", body = ErrorEnvelope),
        (status = 409, description = "The workspace is not a directory on this machine", body = ErrorEnvelope),
        (status = 413, description = "The prompt is too large", body = ErrorEnvelope)))]
async fn create(
    State(state): State<AppState>,
    Json(request): Json<CreateTask>,
) -> Result<(StatusCode, axum::Json<TaskRecord>), ApiError> {
    let task = state.runtime.create_task(request).await?;
    Ok((StatusCode::CREATED, axum::Json(task)))
}

/// One task: its status, thread, turn and final answer.
#[utoipa::path(get, path = "/v1/tasks/{id}", tag = "tasks", operation_id = "getTask",
    params(("id" = String, Path, description = "Task id")),
    responses(
        (status = 200, description = "The task", body = TaskRecord),
        (status = 404, description = "No such task", body = ErrorEnvelope)))]
async fn detail(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<TaskRecord>, ApiError> {
    Ok(axum::Json(state.runtime.task(&id).await?))
}

/// Cancels a queued task, or interrupts a running one's turn (it then
/// ends `cancelled`).
#[utoipa::path(post, path = "/v1/tasks/{id}/cancel", tag = "tasks", operation_id = "cancelTask",
    params(("id" = String, Path, description = "Task id")),
    responses(
        (status = 200, description = "The task after the cancel", body = TaskRecord),
        (status = 404, description = "No such task", body = ErrorEnvelope),
        (status = 409, description = "The task already ended", body = ErrorEnvelope)))]
async fn cancel(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<TaskRecord>, ApiError> {
    Ok(axum::Json(state.runtime.cancel_task(&id).await?))
}

/// Removes completed and cancelled tasks (their threads stay).
#[utoipa::path(post, path = "/v1/tasks/clear", tag = "tasks", operation_id = "clearTasks",
    responses((status = 200, description = "How many were removed", body = TasksCleared)))]
async fn clear(State(state): State<AppState>) -> Result<axum::Json<TasksCleared>, ApiError> {
    Ok(axum::Json(state.runtime.clear_tasks().await?))
}
