//! Fleet runs: several workers on one workspace, each worker's attempt a
//! task (`tasks.rs`) that the fleet's runner claims at most `max_parallel`
//! at a time per run (`runner.rs`). With worktree isolation each worker
//! gets a `git worktree` under `$CODEWHALE_HOME/worktrees/<run>/<n>` on a
//! branch `codewhale/<run>/<n>` made from the workspace's HEAD commit; when
//! an attempt ends its changes are committed on that branch and measured
//! against the base, so the result is branches to review. The user's own
//! checkout is never touched. Every change of a run is an event in its log
//! (`stream.rs`).

mod create;
mod records;
mod runner;
pub mod stream;

use super::{error::RuntimeError, Runtime};
use crate::{
    child::worktree,
    clock,
    store::fleet::{self as store, FleetRunRow},
    store::{tasks, StoreError},
};
use protocol::{
    fleet_events, CreateTask, FleetRunDetail, FleetRuns, FleetWorker, FleetWorkers, ListFleetRuns,
};
use sqlx::{Sqlite, SqliteConnection, Transaction};
use std::{
    collections::HashSet,
    path::{Path, PathBuf},
    sync::Arc,
};
use tokio::sync::{mpsc, watch, Mutex, Notify};

pub const MAX_WORKERS: usize = 16;
pub const MAX_PARALLEL: u32 = 16;
/// Workers at once when the request does not say.
const DEFAULT_PARALLEL: u32 = 4;
pub const MAX_LIST: u32 = 200;
const DEFAULT_LIST: u32 = 50;

/// The fleet's process-wide state.
pub struct Fleet {
    /// `$CODEWHALE_HOME/worktrees`.
    worktrees: PathBuf,
    /// Wakes the fleet runner: a worker was queued here.
    queued: Notify,
    /// The newest fleet event this process wrote (wakes the streams).
    events: watch::Sender<i64>,
    /// One settlement at a time: an attempt's end is committed once.
    settling: Mutex<()>,
    /// Workers whose end is to be recorded by the runner, so a request
    /// that ends them (stop, interrupt, cancel) answers without waiting
    /// on git.
    to_settle: mpsc::UnboundedSender<String>,
    /// Taken by the runner that drains `to_settle`.
    settle_inbox: std::sync::Mutex<Option<mpsc::UnboundedReceiver<String>>>,
    /// Attempts (task ids) that ended in this process and are not recorded
    /// yet. A request that needs one recorded (clean-up, restart) records
    /// it itself rather than refusing; another process's are its own.
    ended_here: std::sync::Mutex<HashSet<String>>,
}

impl Fleet {
    pub fn new(home: &Path) -> Self {
        let (to_settle, settle_inbox) = mpsc::unbounded_channel();
        Fleet {
            worktrees: home.join("worktrees"),
            queued: Notify::new(),
            events: watch::channel(0).0,
            settling: Mutex::new(()),
            to_settle,
            settle_inbox: std::sync::Mutex::new(Some(settle_inbox)),
            ended_here: std::sync::Mutex::new(HashSet::new()),
        }
    }
}

impl Runtime {
    pub async fn fleet_runs(&self, query: ListFleetRuns) -> Result<FleetRuns, RuntimeError> {
        let limit = query.limit.unwrap_or(DEFAULT_LIST);
        if !(1..=MAX_LIST).contains(&limit) {
            return Err(RuntimeError::invalid(format!(
                "limit must be between 1 and {MAX_LIST}"
            )));
        }
        let mut runs = Vec::new();
        for row in store::runs(self.store.pool(), limit).await? {
            let workers = store::workers(self.store.pool(), &row.id).await?;
            runs.push(records::run(row, &workers));
        }
        Ok(FleetRuns { runs })
    }

    /// The run and its workers: each one's branch, diff stat and answer.
    pub async fn fleet_run(&self, run_id: &str) -> Result<FleetRunDetail, RuntimeError> {
        let row = self.run_row(run_id).await?;
        let workers = store::workers(self.store.pool(), run_id).await?;
        Ok(FleetRunDetail {
            run: records::run(row, &workers),
            workers: workers.into_iter().map(records::worker).collect(),
        })
    }

    pub async fn fleet_workers(&self, run_id: &str) -> Result<FleetWorkers, RuntimeError> {
        self.run_row(run_id).await?;
        let workers = store::workers(self.store.pool(), run_id).await?;
        Ok(FleetWorkers {
            workers: workers.into_iter().map(records::worker).collect(),
        })
    }

    pub async fn fleet_worker(&self, worker_id: &str) -> Result<FleetWorker, RuntimeError> {
        Ok(records::worker(self.worker_view(worker_id).await?))
    }

    /// Interrupts the worker's attempt: a queued one is cancelled, a
    /// running one's turn stops and the attempt ends `interrupted`.
    pub async fn interrupt_worker(&self, worker_id: &str) -> Result<FleetWorker, RuntimeError> {
        let view = self.worker_view(worker_id).await?;
        if records::is_final(&view.status) {
            return Err(RuntimeError::Conflict(format!(
                "worker {worker_id} is not running ({}); restart it instead",
                view.status
            )));
        }
        self.cancel_task(&view.worker.task_id).await?;
        self.fleet_worker(worker_id).await
    }

    /// Runs the worker again: a new attempt, on its thread (so it sees what
    /// it did) and in its worktree as it was left.
    pub async fn restart_worker(
        self: &Arc<Self>,
        worker_id: &str,
    ) -> Result<FleetWorker, RuntimeError> {
        let mut view = self.worker_view(worker_id).await?;
        if !records::is_final(&view.status) {
            return Err(RuntimeError::Conflict(format!(
                "worker {worker_id} is still {}; interrupt it first",
                view.status
            )));
        }
        if !recorded(&view) && self.settle_now(&view).await {
            view = self.worker_view(worker_id).await?;
        }
        if !recorded(&view) {
            return Err(RuntimeError::Conflict(format!(
                "worker {worker_id}'s last attempt is still being recorded; try again in a moment"
            )));
        }
        let run = self.run_row(&view.worker.run_id).await?;
        if run.cleaned_up && view.worker.worktree.is_some() {
            return Err(RuntimeError::Conflict(
                "the run's worktrees were removed; start a new run".into(),
            ));
        }
        let worker = &view.worker;
        let mut task = self
            .task_row(CreateTask {
                prompt: worker.prompt.clone(),
                model: worker.model.clone(),
                model_provider: worker.model_provider.clone(),
                mode: worker
                    .mode
                    .as_deref()
                    .and_then(|m| protocol::Mode::parse(m).ok()),
                auto_approve: run.auto_approve,
                ..CreateTask::default()
            })
            .await?;
        task.workspace = Some(worker.workspace.clone());
        task.thread_id = view.task_thread_id.clone().or(worker.thread_id.clone());
        task.fleet_run_id = Some(run.id.clone());
        task.fleet_worker_id = Some(worker.id.clone());
        let mut tx = self.begin_fleet().await?;
        tasks::insert(&mut *tx, &task).await?;
        if !store::restart(&mut tx, &worker.id, &worker.task_id, &task.id).await? {
            return Err(RuntimeError::Conflict(format!(
                "worker {worker_id} was restarted or its worktrees removed meanwhile"
            )));
        }
        let seq = log_worker(&mut tx, &worker.id, fleet_events::WORKER_QUEUED).await?;
        self.commit_fleet(tx, seq).await?;
        let restarted = self.fleet_worker(worker_id).await?;
        self.fleet.queued.notify_one();
        Ok(restarted)
    }

    /// Stops the run: queued workers are cancelled, running ones
    /// interrupted. A run with nothing left to stop is a conflict.
    pub async fn stop_fleet_run(&self, run_id: &str) -> Result<FleetRunDetail, RuntimeError> {
        self.run_row(run_id).await?;
        let live: Vec<_> = store::workers(self.store.pool(), run_id)
            .await?
            .into_iter()
            .filter(|w| !records::is_final(&w.status))
            .collect();
        if live.is_empty() {
            return Err(RuntimeError::Conflict(format!(
                "fleet run {run_id} has no worker left running"
            )));
        }
        // Marked first: the runner claims nothing more of a stopped run,
        // and the stream reads stop → the workers' ends (once).
        let mut tx = self.begin_fleet().await?;
        if store::stop(&mut *tx, run_id, &clock::now()).await? {
            let seq = log_run(&mut tx, run_id, fleet_events::RUN_STOPPED).await?;
            self.commit_fleet(tx, seq).await?;
        }
        for worker in &live {
            // One that ended meanwhile refuses: nothing to stop.
            let _ = self.cancel_task(&worker.worker.task_id).await;
        }
        self.fleet_run(run_id).await
    }

    /// Removes the run's worktrees (their branches, with each worker's
    /// commit, stay). Only once every worker has ended.
    pub async fn clean_up_fleet_run(
        self: &Arc<Self>,
        run_id: &str,
    ) -> Result<FleetRunDetail, RuntimeError> {
        let run = self.run_row(run_id).await?;
        let Some(top) = run.repo_top.as_deref() else {
            return Err(RuntimeError::Conflict(
                "a shared run has no worktrees to remove".into(),
            ));
        };
        let mut workers = store::workers(self.store.pool(), run_id).await?;
        if workers.iter().any(|w| !records::is_final(&w.status)) {
            return Err(RuntimeError::Conflict(
                "workers are still running; stop the run first".into(),
            ));
        }
        // An ended attempt's changes are committed when it is recorded:
        // removing its worktree before that would lose them. An attempt
        // shows as ended a moment before it is recorded; one that ended
        // here is recorded now instead of refusing.
        let mut settled = false;
        for view in workers.iter().filter(|w| !recorded(w)) {
            settled |= self.settle_now(view).await;
        }
        if settled {
            workers = store::workers(self.store.pool(), run_id).await?;
        }
        if !workers.iter().all(recorded) {
            return Err(RuntimeError::Conflict(
                "a worker's last changes are still being committed; try again in a moment".into(),
            ));
        }
        if !run.cleaned_up {
            for worker in &workers {
                if let Some(path) = &worker.worker.worktree {
                    worktree::remove(Path::new(top), Path::new(path))
                        .await
                        .map_err(RuntimeError::Conflict)?;
                }
            }
            let _ = std::fs::remove_dir(self.fleet.worktrees.join(run_id));
            let mut tx = self.begin_fleet().await?;
            if store::mark_cleaned_up(&mut *tx, run_id).await? {
                let seq = log_run(&mut tx, run_id, fleet_events::RUN_CLEANED_UP).await?;
                self.commit_fleet(tx, seq).await?;
            }
        }
        self.fleet_run(run_id).await
    }

    async fn run_row(&self, run_id: &str) -> Result<FleetRunRow, RuntimeError> {
        store::run(self.store.pool(), run_id)
            .await?
            .ok_or_else(|| RuntimeError::NotFound(format!("no fleet run {run_id}")))
    }

    async fn worker_view(&self, worker_id: &str) -> Result<store::WorkerView, RuntimeError> {
        store::worker(self.store.pool(), worker_id)
            .await?
            .ok_or_else(|| RuntimeError::NotFound(format!("no fleet worker {worker_id}")))
    }

    /// A change of a run or worker and the event that says so commit
    /// together (`log_run`, `log_worker`): the log holds every change once,
    /// in commit order, whatever stops the process in between.
    async fn begin_fleet(&self) -> Result<Transaction<'static, Sqlite>, RuntimeError> {
        Ok(self
            .store
            .pool()
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(StoreError::from)?)
    }

    /// Commits and wakes the run streams up to event `seq`.
    async fn commit_fleet(
        &self,
        tx: Transaction<'static, Sqlite>,
        seq: i64,
    ) -> Result<(), RuntimeError> {
        tx.commit().await.map_err(StoreError::from)?;
        self.fleet.events.send_replace(seq);
        Ok(())
    }
}

/// Appends `event` with the run as `tx` now sees it.
async fn log_run(
    tx: &mut SqliteConnection,
    run_id: &str,
    event: &str,
) -> Result<i64, RuntimeError> {
    let row = store::run(&mut *tx, run_id)
        .await?
        .ok_or_else(|| RuntimeError::NotFound(format!("no fleet run {run_id}")))?;
    let workers = store::workers(&mut *tx, run_id).await?;
    append(tx, run_id, None, event, &records::run(row, &workers)).await
}

/// Appends `event` with the worker as `tx` now sees it.
async fn log_worker(
    tx: &mut SqliteConnection,
    worker_id: &str,
    event: &str,
) -> Result<i64, RuntimeError> {
    let view = store::worker(&mut *tx, worker_id)
        .await?
        .ok_or_else(|| RuntimeError::NotFound(format!("no fleet worker {worker_id}")))?;
    let worker = records::worker(view);
    append(tx, &worker.run_id, Some(&worker.worker_id), event, &worker).await
}

async fn append(
    tx: &mut SqliteConnection,
    run_id: &str,
    worker_id: Option<&str>,
    event: &str,
    payload: &impl serde::Serialize,
) -> Result<i64, RuntimeError> {
    let payload = serde_json::to_string(payload)
        .map_err(|e| StoreError::Corrupt(format!("a fleet event payload: {e}")))?;
    Ok(store::append_event(tx, run_id, worker_id, event, &payload, &clock::now()).await?)
}

/// Whether the worker's current attempt has been recorded (its changes
/// committed on its branch).
pub(super) fn recorded(view: &store::WorkerView) -> bool {
    view.worker.settled_task_id.as_deref() == Some(view.worker.task_id.as_str())
}
