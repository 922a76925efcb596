//! `/v1/agent-runs`: the receipts of sub-agent runs (runs are started by a
//! model's `spawn_agent` and end with their child's turn), and removing a
//! worktree run's worktree.

use crate::http::{
    error::ApiError,
    extract::{Path, Query},
    state::AppState,
};
use axum::extract::State;
use protocol::{AgentRun, AgentRuns, ErrorEnvelope, ListAgentRuns};
use utoipa_axum::{router::OpenApiRouter, routes};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(detail))
        .routes(routes!(clean_up))
}

/// Sub-agent runs, newest first, each with its receipt.
#[utoipa::path(get, path = "/v1/agent-runs", tag = "agent-runs", operation_id = "listAgentRuns",
    params(ListAgentRuns),
    responses(
        (status = 200, description = "The runs", body = AgentRuns),
        (status = 400, description = "A limit out of range or a malformed parent thread id", body = ErrorEnvelope)))]
async fn list(
    State(state): State<AppState>,
    Query(query): Query<ListAgentRuns>,
) -> Result<axum::Json<AgentRuns>, ApiError> {
    Ok(axum::Json(state.runtime.agent_runs(query).await?))
}

/// One run's receipt: what was asked, how it went, the steps, the files
/// and branch it left, the commands it ran, what it cost.
#[utoipa::path(get, path = "/v1/agent-runs/{run_id}", tag = "agent-runs", operation_id = "getAgentRun",
    params(("run_id" = String, Path, description = "The run's id, or its child thread's (the worker's)")),
    responses(
        (status = 200, description = "The receipt", body = AgentRun),
        (status = 404, description = "No such run", body = ErrorEnvelope)))]
async fn detail(
    State(state): State<AppState>,
    Path(run_id): Path<String>,
) -> Result<axum::Json<AgentRun>, ApiError> {
    Ok(axum::Json(state.runtime.agent_run(&run_id).await?))
}

/// Removes an ended worktree run's worktree. Work left in it since the
/// run's own commit (a later turn on the child's thread) is committed on
/// the run's branch first; the branch stays. Removing it twice is fine.
#[utoipa::path(post, path = "/v1/agent-runs/{run_id}/cleanup", tag = "agent-runs", operation_id = "cleanUpAgentRun",
    params(("run_id" = String, Path, description = "The run's id, or its child thread's (the worker's)")),
    responses(
        (status = 200, description = "The receipt, its branch artifact without a worktree", body = AgentRun),
        (status = 404, description = "No such run", body = ErrorEnvelope),
        (status = 409, description = "The run is still running, shares its parent's workspace (no worktree), its thread has a turn running, or git could not commit or remove the worktree", body = ErrorEnvelope)))]
async fn clean_up(
    State(state): State<AppState>,
    Path(run_id): Path<String>,
) -> Result<axum::Json<AgentRun>, ApiError> {
    Ok(axum::Json(state.runtime.clean_up_agent_run(&run_id).await?))
}
