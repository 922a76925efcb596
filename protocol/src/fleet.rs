//! Fleet: several agents working one workspace side by side, each worker a
//! task; with worktree isolation each in its own `git worktree` on its own
//! branch, so the morning's result is branches to review and merge.

use crate::{Mode, TaskStatus};
use serde::{Deserialize, Serialize};

/// Where the workers work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FleetIsolation {
    /// Each worker in its own git worktree and branch, made from the
    /// workspace's HEAD commit (uncommitted changes are not carried).
    #[default]
    Worktree,
    /// All workers in the workspace itself.
    Shared,
}

impl FleetIsolation {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Worktree => "worktree",
            Self::Shared => "shared",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Worktree, Self::Shared]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// A run as a whole: `running` while any worker is queued or running,
/// then `stopped` (someone stopped it), `completed` (every worker
/// completed) or `failed` (some did not).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FleetRunStatus {
    Running,
    Stopped,
    Completed,
    Failed,
}

/// One worker of `POST /v1/fleet/runs`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct FleetWorkerSpec {
    pub prompt: String,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub model_provider: Option<String>,
    #[serde(default)]
    pub mode: Option<Mode>,
}

/// `POST /v1/fleet/runs`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateFleetRun {
    /// 1 to 16 workers.
    #[cfg_attr(feature = "openapi", schema(min_items = 1, max_items = 16))]
    pub workers: Vec<FleetWorkerSpec>,
    /// A directory on this machine; with worktree isolation, inside a git
    /// repository with at least one commit.
    pub workspace: String,
    /// Workers running at once (default: all of them, at most 4). A whole
    /// number, however it is written (`5` or `5.0`).
    #[serde(default, deserialize_with = "crate::devices::whole_number")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 16))]
    pub max_parallel: Option<u64>,
    #[serde(default)]
    pub isolation: FleetIsolation,
    /// Writes and commands run without asking (default: they wait for an
    /// approval like any other turn's).
    #[serde(default)]
    pub auto_approve: bool,
}

/// What a worker changed on its branch, against the run's base commit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiffStat {
    pub files_changed: u32,
    pub insertions: u32,
    pub deletions: u32,
    /// Each file (binary files count no lines).
    pub files: Vec<DiffStatFile>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiffStatFile {
    pub path: String,
    pub insertions: u32,
    pub deletions: u32,
    pub binary: bool,
}

/// A worker: its current attempt (a task), where it works, and once it
/// ended, its answer and what it changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FleetWorker {
    pub worker_id: String,
    pub run_id: String,
    /// 1-based position in the run.
    pub index: u32,
    pub prompt: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub model_provider: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub mode: Option<Mode>,
    /// The current attempt's status.
    pub status: TaskStatus,
    /// The current attempt (`GET /v1/tasks/{id}`).
    pub task_id: String,
    /// 1, then one more for each restart.
    pub attempts: u32,
    /// Where the worker works: its worktree (or the run's workspace).
    pub workspace: String,
    /// Its branch (worktree isolation only).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub branch: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub thread_id: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub turn_id: Option<String>,
    /// The final agent message of its latest attempt.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub answer: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub error: Option<String>,
    /// The commit holding the worker's changes on its branch, once it
    /// ended having changed something.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub commit: Option<String>,
    /// Its branch against the base commit, once it ended.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub diff_stat: Option<DiffStat>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub started_at: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub finished_at: Option<String>,
}

/// How many workers are where.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FleetCounts {
    pub queued: u32,
    pub running: u32,
    pub completed: u32,
    pub failed: u32,
    pub cancelled: u32,
    pub interrupted: u32,
}

/// A fleet run. `GET /v1/fleet/runs/{run_id}` adds its workers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FleetRun {
    pub id: String,
    pub status: FleetRunStatus,
    pub workspace: String,
    pub isolation: FleetIsolation,
    pub max_parallel: u32,
    pub auto_approve: bool,
    /// The commit the worktrees were made from (worktree isolation).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub base_commit: Option<String>,
    pub worker_count: u32,
    pub counts: FleetCounts,
    /// Worktrees were removed (`POST …/cleanup`); branches stay.
    pub cleaned_up: bool,
    pub created_at: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub stopped_at: Option<String>,
    /// Set when the last worker ended.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub finished_at: Option<String>,
}

/// `GET /v1/fleet/runs/{run_id}`: the run and every worker, which is its
/// result: each worker's branch, diff stat and final answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FleetRunDetail {
    pub run: FleetRun,
    pub workers: Vec<FleetWorker>,
}

/// `GET /v1/fleet/runs`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FleetRuns {
    pub runs: Vec<FleetRun>,
}

/// `GET /v1/fleet/runs/{run_id}/workers`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FleetWorkers {
    pub workers: Vec<FleetWorker>,
}

/// `GET /v1/fleet/runs` query.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::IntoParams),
    into_params(parameter_in = Query)
)]
#[serde(deny_unknown_fields)]
pub struct ListFleetRuns {
    /// At most this many, newest first (default 50, at most 200).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// One event of a fleet's stream: the same envelope as a thread's, with
/// the run and worker in place of thread, turn and item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FleetEventEnvelope {
    pub schema_version: u32,
    pub seq: i64,
    pub previous_seq: i64,
    /// `fleet.run.created`, `fleet.worker.queued`, `fleet.worker.started`,
    /// `fleet.worker.finished`, `fleet.run.stopped`, `fleet.run.finished`,
    /// `fleet.run.cleaned_up`.
    pub event: String,
    pub kind: String,
    pub run_id: String,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub worker_id: Option<String>,
    pub timestamp: String,
    pub created_at: String,
    /// A worker event carries the worker (`FleetWorker`) as it is after
    /// the change; a run event carries the run (`FleetRun`).
    pub payload: serde_json::Value,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_parallel_is_a_whole_number_however_it_is_written() {
        let parse = |v: serde_json::Value| serde_json::from_value::<CreateFleetRun>(v);
        let body = |n: serde_json::Value| serde_json::json!({ "workers": [{ "prompt": "p" }], "workspace": "/w", "max_parallel": n });
        assert_eq!(parse(body(5.0.into())).unwrap().max_parallel, Some(5));
        assert_eq!(parse(body(5.into())).unwrap().max_parallel, Some(5));
        assert_eq!(
            parse(body(serde_json::Value::Null)).unwrap().max_parallel,
            None
        );
        assert!(parse(body(2.5.into())).is_err());
        let none = serde_json::json!({ "workers": [], "workspace": "/w" });
        assert_eq!(parse(none).unwrap().max_parallel, None);
    }
}

/// The names of fleet events.
pub mod fleet_events {
    pub const RUN_CREATED: &str = "fleet.run.created";
    pub const WORKER_QUEUED: &str = "fleet.worker.queued";
    pub const WORKER_STARTED: &str = "fleet.worker.started";
    pub const WORKER_FINISHED: &str = "fleet.worker.finished";
    pub const RUN_STOPPED: &str = "fleet.run.stopped";
    pub const RUN_FINISHED: &str = "fleet.run.finished";
    pub const RUN_CLEANED_UP: &str = "fleet.run.cleaned_up";
    pub const ALL: [&str; 7] = [
        RUN_CREATED,
        WORKER_QUEUED,
        WORKER_STARTED,
        WORKER_FINISHED,
        RUN_STOPPED,
        RUN_FINISHED,
        RUN_CLEANED_UP,
    ];
}
