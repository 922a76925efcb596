//! `/v1/automations`: prompts run on a schedule, each run a task.

use crate::http::{
    error::ApiError,
    extract::{Json, Path, Query},
    state::AppState,
};
use axum::{extract::State, http::StatusCode};
use protocol::{
    AutomationRecord, AutomationRun, CreateAutomation, ErrorEnvelope, ListAutomationRuns,
    PatchAutomation, PreviewSchedule, SchedulePreview,
};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(preview))
        .routes(routes!(detail, patch, delete))
        .routes(routes!(run))
        .routes(routes!(pause))
        .routes(routes!(resume))
        .routes(routes!(runs))
}

/// Automations, oldest first.
#[utoipa::path(get, path = "/v1/automations", tag = "automations", operation_id = "listAutomations",
    responses((status = 200, description = "The automations", body = Vec<AutomationRecord>)))]
async fn list(
    State(state): State<AppState>,
) -> Result<axum::Json<Vec<AutomationRecord>>, ApiError> {
    Ok(axum::Json(state.runtime.list_automations().await?))
}

/// Creates an automation: a cron `schedule` or `interval_seconds`.
#[utoipa::path(post, path = "/v1/automations", tag = "automations", operation_id = "createAutomation",
    request_body = CreateAutomation,
    responses(
        (status = 201, description = "Created, with its next run", body = AutomationRecord),
        (status = 400, description = "A blank name, prompt or model, an interval out of range, or not exactly one of schedule and interval_seconds", body = ErrorEnvelope),
        (status = 409, description = "A cron expression or time zone this server cannot read, or a workspace that is not a directory on this machine", body = ErrorEnvelope),
        (status = 413, description = "The prompt is too large", body = ErrorEnvelope)))]
async fn create(
    State(state): State<AppState>,
    Json(request): Json<CreateAutomation>,
) -> Result<(StatusCode, axum::Json<AutomationRecord>), ApiError> {
    let automation = state.runtime.create_automation(request).await?;
    Ok((StatusCode::CREATED, axum::Json(automation)))
}

/// A schedule in words and its next five runs, without saving anything.
#[utoipa::path(get, path = "/v1/automations/preview", tag = "automations", operation_id = "previewSchedule",
    params(PreviewSchedule),
    responses(
        (status = 200, description = "The schedule in words, and its next runs", body = SchedulePreview),
        (status = 400, description = "An interval out of range", body = ErrorEnvelope),
        (status = 409, description = "Not exactly one of schedule and interval_seconds, or a cron expression or time zone this server cannot read", body = ErrorEnvelope)))]
async fn preview(
    State(state): State<AppState>,
    Query(query): Query<PreviewSchedule>,
) -> Result<axum::Json<SchedulePreview>, ApiError> {
    Ok(axum::Json(state.runtime.preview_schedule(query)?))
}

#[utoipa::path(get, path = "/v1/automations/{id}", tag = "automations", operation_id = "getAutomation",
    params(("id" = String, Path, description = "Automation id")),
    responses(
        (status = 200, description = "The automation", body = AutomationRecord),
        (status = 404, description = "No such automation", body = ErrorEnvelope)))]
async fn detail(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<AutomationRecord>, ApiError> {
    Ok(axum::Json(state.runtime.automation(&id).await?))
}

/// Changes what is given; a new schedule or time zone counts from now.
#[utoipa::path(patch, path = "/v1/automations/{id}", tag = "automations", operation_id = "updateAutomation",
    params(("id" = String, Path, description = "Automation id")),
    request_body = PatchAutomation,
    responses(
        (status = 200, description = "The automation after the change", body = AutomationRecord),
        (status = 400, description = "Nothing to change, or a bad value", body = ErrorEnvelope),
        (status = 404, description = "No such automation", body = ErrorEnvelope),
        (status = 409, description = "A cron expression or time zone this server cannot read, a workspace that is not a directory, or the automation kept changing meanwhile", body = ErrorEnvelope)))]
async fn patch(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(request): Json<PatchAutomation>,
) -> Result<axum::Json<AutomationRecord>, ApiError> {
    Ok(axum::Json(
        state.runtime.patch_automation(&id, request).await?,
    ))
}

/// Deletes it and its run history; its tasks and threads stay.
#[utoipa::path(delete, path = "/v1/automations/{id}", tag = "automations", operation_id = "deleteAutomation",
    params(("id" = String, Path, description = "Automation id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such automation", body = ErrorEnvelope)))]
async fn delete(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.runtime.delete_automation(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Runs it now: a task is queued unless its last run is still going.
#[utoipa::path(post, path = "/v1/automations/{id}/run", tag = "automations", operation_id = "runAutomation",
    params(("id" = String, Path, description = "Automation id")),
    responses(
        (status = 201, description = "The run, with its queued task", body = AutomationRun),
        (status = 404, description = "No such automation", body = ErrorEnvelope),
        (status = 409, description = "Its previous run is still queued or running, or its workspace is gone", body = ErrorEnvelope)))]
async fn run(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<(StatusCode, axum::Json<AutomationRun>), ApiError> {
    let run = state.runtime.run_automation(&id).await?;
    Ok((StatusCode::CREATED, axum::Json(run)))
}

/// No scheduled runs until resumed (a run already going goes on).
#[utoipa::path(post, path = "/v1/automations/{id}/pause", tag = "automations", operation_id = "pauseAutomation",
    params(("id" = String, Path, description = "Automation id")),
    responses(
        (status = 200, description = "Paused", body = AutomationRecord),
        (status = 404, description = "No such automation", body = ErrorEnvelope),
        (status = 409, description = "The automation kept changing meanwhile", body = ErrorEnvelope)))]
async fn pause(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<AutomationRecord>, ApiError> {
    Ok(axum::Json(state.runtime.pause_automation(&id).await?))
}

/// Scheduled again from the next run after now.
#[utoipa::path(post, path = "/v1/automations/{id}/resume", tag = "automations", operation_id = "resumeAutomation",
    params(("id" = String, Path, description = "Automation id")),
    responses(
        (status = 200, description = "Active, with its next run", body = AutomationRecord),
        (status = 404, description = "No such automation", body = ErrorEnvelope),
        (status = 409, description = "Its runs cannot start (its workspace is gone): fix that first", body = ErrorEnvelope)))]
async fn resume(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<axum::Json<AutomationRecord>, ApiError> {
    Ok(axum::Json(state.runtime.resume_automation(&id).await?))
}

/// Its runs, newest first: each one's task, or why it was skipped.
#[utoipa::path(get, path = "/v1/automations/{id}/runs", tag = "automations", operation_id = "listAutomationRuns",
    params(("id" = String, Path, description = "Automation id"), ListAutomationRuns),
    responses(
        (status = 200, description = "The runs", body = Vec<AutomationRun>),
        (status = 400, description = "A bad limit", body = ErrorEnvelope),
        (status = 404, description = "No such automation", body = ErrorEnvelope)))]
async fn runs(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<ListAutomationRuns>,
) -> Result<axum::Json<Vec<AutomationRun>>, ApiError> {
    Ok(axum::Json(state.runtime.automation_runs(&id, query).await?))
}
