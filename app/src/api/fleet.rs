//! Server functions of the fleet pages. The runtime holds every rule (how
//! many at once, what may be stopped or restarted, worktrees); these carry
//! the calls and clip long text for lists that are polled.

use crate::error::ServiceError;
use crate::protocol::{FleetRun, FleetRunDetail};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::service::service as runtime;

/// Runs the fleet page lists.
#[cfg(feature = "ssr")]
const RUNS_SHOWN: u32 = 50;

/// What the fleet pages' buttons do: stop or clean up a run (by the run's
/// id), interrupt or restart a worker (by the worker's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FleetCommand {
    StopRun,
    CleanUpRun,
    InterruptWorker,
    RestartWorker,
}

/// The new-fleet form as typed: one worker per non-empty line of
/// `prompts`. The runtime checks everything else.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetDraft {
    pub workspace: String,
    pub prompts: String,
    pub max_parallel: Option<u32>,
    pub shared: bool,
    pub auto_approve: bool,
}

#[server(prefix = "/api", endpoint = "fleet_runs", output = crate::api::Json)]
pub async fn load_fleet_runs() -> Result<Vec<FleetRun>, ServiceError> {
    let query = crate::protocol::ListFleetRuns {
        limit: Some(RUNS_SHOWN),
    };
    Ok(runtime()?.fleet_runs(query).await?.runs)
}

#[server(prefix = "/api", endpoint = "fleet_run", output = crate::api::Json)]
pub async fn load_fleet_run(id: String) -> Result<FleetRunDetail, ServiceError> {
    let mut detail = runtime()?.fleet_run(id).await?;
    for worker in &mut detail.workers {
        super::background::clip(&mut worker.prompt);
        if let Some(answer) = &mut worker.answer {
            super::background::clip(answer);
        }
    }
    Ok(detail)
}

/// Starts a fleet; answers its id, for the page to open.
#[server(prefix = "/api", endpoint = "start_fleet", output = crate::api::Json)]
pub async fn start_fleet(draft: FleetDraft) -> Result<String, ServiceError> {
    use crate::protocol::{CreateFleetRun, FleetIsolation, FleetWorkerSpec};
    let workers = draft
        .prompts
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| FleetWorkerSpec {
            prompt: line.trim().to_string(),
            ..Default::default()
        })
        .collect();
    let request = CreateFleetRun {
        workers,
        workspace: draft.workspace,
        max_parallel: draft.max_parallel.map(u64::from),
        isolation: if draft.shared {
            FleetIsolation::Shared
        } else {
            FleetIsolation::Worktree
        },
        auto_approve: draft.auto_approve,
    };
    Ok(runtime()?.create_fleet_run(request).await?.run.id)
}

#[server(prefix = "/api", endpoint = "fleet_action", output = crate::api::Json)]
pub async fn fleet_action(id: String, command: FleetCommand) -> Result<(), ServiceError> {
    runtime()?.fleet_command(id, command).await
}
