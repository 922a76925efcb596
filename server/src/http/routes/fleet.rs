//! `/v1/fleet`: workers side by side, each in its own worktree and branch,
//! and each run's event stream.

use super::threads::EventsQuery;
use crate::http::{
    error::ApiError,
    extract::{Json, Path, Query},
    state::AppState,
};
use axum::{
    extract::State,
    http::{HeaderMap, StatusCode},
};
use protocol::{
    CreateFleetRun, ErrorEnvelope, FleetRunDetail, FleetRuns, FleetWorker, FleetWorkers,
    ListFleetRuns,
};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(detail))
        .routes(routes!(workers))
        .routes(routes!(stop))
        .routes(routes!(clean_up))
        .routes(routes!(events))
        .routes(routes!(worker))
        .routes(routes!(interrupt))
        .routes(routes!(restart))
}

/// Fleet runs, newest first.
#[utoipa::path(get, path = "/v1/fleet/runs", tag = "fleet", operation_id = "listFleetRuns",
    params(ListFleetRuns),
    responses(
        (status = 200, description = "The runs", body = FleetRuns),
        (status = 400, description = "A limit out of range", body = ErrorEnvelope)))]
async fn list(
    State(state): State<AppState>,
    Query(query): Query<ListFleetRuns>,
) -> Result<axum::Json<FleetRuns>, ApiError> {
    Ok(axum::Json(state.runtime.fleet_runs(query).await?))
}

/// Starts a fleet: every worker queued at once, `max_parallel` running at
/// a time. With worktree isolation (the default) each worker gets a git
/// worktree and branch made from the workspace's HEAD commit.
#[utoipa::path(post, path = "/v1/fleet/runs", tag = "fleet", operation_id = "createFleetRun",
    request_body = CreateFleetRun,
    responses(
        (status = 201, description = "Started, with its workers", body = FleetRunDetail),
        (status = 400, description = "No workers or too many, a blank prompt or model, a max_parallel out of range", body = ErrorEnvelope),
        (status = 409, description = "The workspace is not a directory here, or (worktree isolation) not in a git repository with a commit, or a worktree could not be made", body = ErrorEnvelope),
        (status = 413, description = "A prompt is too large", body = ErrorEnvelope)))]
async fn create(
    State(state): State<AppState>,
    Json(request): Json<CreateFleetRun>,
) -> Result<(StatusCode, axum::Json<FleetRunDetail>), ApiError> {
    let run = state.runtime.create_fleet_run(request).await?;
    Ok((StatusCode::CREATED, axum::Json(run)))
}

/// The run and its result: each worker's status, branch, diff stat and
/// final answer.
#[utoipa::path(get, path = "/v1/fleet/runs/{run_id}", tag = "fleet", operation_id = "getFleetRun",
    params(("run_id" = String, Path, description = "Fleet run id")),
    responses(
        (status = 200, description = "The run and its workers", body = FleetRunDetail),
        (status = 404, description = "No such run", body = ErrorEnvelope)))]
async fn detail(
    State(state): State<AppState>,
    Path(run_id): Path<String>,
) -> Result<axum::Json<FleetRunDetail>, ApiError> {
    Ok(axum::Json(state.runtime.fleet_run(&run_id).await?))
}

/// The run's workers in order.
#[utoipa::path(get, path = "/v1/fleet/runs/{run_id}/workers", tag = "fleet", operation_id = "listFleetWorkers",
    params(("run_id" = String, Path, description = "Fleet run id")),
    responses(
        (status = 200, description = "The workers", body = FleetWorkers),
        (status = 404, description = "No such run", body = ErrorEnvelope)))]
async fn workers(
    State(state): State<AppState>,
    Path(run_id): Path<String>,
) -> Result<axum::Json<FleetWorkers>, ApiError> {
    Ok(axum::Json(state.runtime.fleet_workers(&run_id).await?))
}

/// Stops the run: queued workers are cancelled, running ones interrupted.
#[utoipa::path(post, path = "/v1/fleet/runs/{run_id}/stop", tag = "fleet", operation_id = "stopFleetRun",
    params(("run_id" = String, Path, description = "Fleet run id")),
    responses(
        (status = 200, description = "The run after the stop", body = FleetRunDetail),
        (status = 404, description = "No such run", body = ErrorEnvelope),
        (status = 409, description = "No worker is left running", body = ErrorEnvelope)))]
async fn stop(
    State(state): State<AppState>,
    Path(run_id): Path<String>,
) -> Result<axum::Json<FleetRunDetail>, ApiError> {
    Ok(axum::Json(state.runtime.stop_fleet_run(&run_id).await?))
}

/// Removes the run's worktrees once every worker has ended; the branches,
/// with each worker's commit, stay. Removing them twice is fine.
#[utoipa::path(post, path = "/v1/fleet/runs/{run_id}/cleanup", tag = "fleet", operation_id = "cleanUpFleetRun",
    params(("run_id" = String, Path, description = "Fleet run id")),
    responses(
        (status = 200, description = "The run, its worktrees removed", body = FleetRunDetail),
        (status = 404, description = "No such run", body = ErrorEnvelope),
        (status = 409, description = "Workers are still running, the run shares its workspace (no worktrees), or git could not remove one", body = ErrorEnvelope)))]
async fn clean_up(
    State(state): State<AppState>,
    Path(run_id): Path<String>,
) -> Result<axum::Json<FleetRunDetail>, ApiError> {
    Ok(axum::Json(state.runtime.clean_up_fleet_run(&run_id).await?))
}

/// SSE: the run's events (`fleet.run.created`, `fleet.worker.queued`,
/// `fleet.worker.started`, `fleet.worker.finished`, `fleet.run.stopped`,
/// `fleet.run.finished`, `fleet.run.cleaned_up`), replayed from the cursor
/// and then live, with the thread streams' cursor rules. A worker event's
/// payload is the worker as it is after the change; a run event's is the
/// run.
#[utoipa::path(get, path = "/v1/fleet/runs/{run_id}/events", tag = "fleet", operation_id = "streamFleetEvents",
    params(
        ("run_id" = String, Path, description = "Fleet run id"),
        EventsQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "The last seq received (browsers' EventSource sends it on reconnect)")),
    responses(
        (status = 200, description = "The event stream: one SSE frame per event (`id:` = seq, `event:` = name, `data:` = the envelope as JSON), `: keep-alive` comments every 15 s",
            content_type = "text/event-stream", body = crate::http::openapi::FleetStreamFrame),
        (status = 400, description = "A negative since_seq, a replay_limit out of range, or a malformed Last-Event-ID", body = ErrorEnvelope),
        (status = 404, description = "No such run", body = ErrorEnvelope),
        (status = 409, description = "`since_seq` is ahead of every fleet event this server has: the cursor is from another runtime", body = ErrorEnvelope)))]
async fn events(
    State(state): State<AppState>,
    Path(run_id): Path<String>,
    Query(query): Query<EventsQuery>,
    headers: HeaderMap,
) -> Result<axum::response::Response, ApiError> {
    let cursor = query.cursor(&headers)?;
    let frames = state.runtime.subscribe_fleet(&run_id, cursor).await?;
    Ok(crate::http::sse::response(frames))
}

/// One worker.
#[utoipa::path(get, path = "/v1/fleet/workers/{worker_id}", tag = "fleet", operation_id = "getFleetWorker",
    params(("worker_id" = String, Path, description = "Fleet worker id")),
    responses(
        (status = 200, description = "The worker", body = FleetWorker),
        (status = 404, description = "No such worker", body = ErrorEnvelope)))]
async fn worker(
    State(state): State<AppState>,
    Path(worker_id): Path<String>,
) -> Result<axum::Json<FleetWorker>, ApiError> {
    Ok(axum::Json(state.runtime.fleet_worker(&worker_id).await?))
}

/// Interrupts the worker: a queued one is cancelled, a running one's turn
/// stops and it ends `interrupted` (restart it to go on).
#[utoipa::path(post, path = "/v1/fleet/workers/{worker_id}/interrupt", tag = "fleet", operation_id = "interruptFleetWorker",
    params(("worker_id" = String, Path, description = "Fleet worker id")),
    responses(
        (status = 200, description = "The worker after the interrupt", body = FleetWorker),
        (status = 404, description = "No such worker", body = ErrorEnvelope),
        (status = 409, description = "The worker is not queued or running", body = ErrorEnvelope)))]
async fn interrupt(
    State(state): State<AppState>,
    Path(worker_id): Path<String>,
) -> Result<axum::Json<FleetWorker>, ApiError> {
    Ok(axum::Json(
        state.runtime.interrupt_worker(&worker_id).await?,
    ))
}

/// Runs an ended worker again: a new attempt on its thread, in its
/// worktree as it was left.
#[utoipa::path(post, path = "/v1/fleet/workers/{worker_id}/restart", tag = "fleet", operation_id = "restartFleetWorker",
    params(("worker_id" = String, Path, description = "Fleet worker id")),
    responses(
        (status = 200, description = "The worker, queued again", body = FleetWorker),
        (status = 404, description = "No such worker", body = ErrorEnvelope),
        (status = 409, description = "The worker is still queued or running, or its run's worktrees were removed", body = ErrorEnvelope)))]
async fn restart(
    State(state): State<AppState>,
    Path(worker_id): Path<String>,
) -> Result<axum::Json<FleetWorker>, ApiError> {
    Ok(axum::Json(state.runtime.restart_worker(&worker_id).await?))
}
