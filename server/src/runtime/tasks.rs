//! Tasks: turns that run with no client attached, from the durable queue
//! in the store (`store/tasks.rs`). A process that serves HTTP runs the
//! queue (`Runtime::run_tasks`) with a concurrency limit; the others only
//! add to it. A task runs on a new thread or a given one, through the same
//! `start_turn` as every other caller, so its approvals wait like anyone's
//! (in the workbench, on the phone) unless it was created auto-approved.
//!
//! After a restart (only in the process that has the store to itself, as
//! for turns), queued tasks stay queued and running ones are recorded
//! interrupted, or queued again when they asked for it.

use super::{error::RuntimeError, ids, turns::RESTART_ERROR, Runtime};
use crate::{
    clock,
    store::{
        tasks::{self, TaskRow},
        StoreError,
    },
};
use protocol::{
    CreateTask, CreateThread, ListTasks, Mode, StartTurn, TaskRecord, TaskStatus, TasksCleared,
    TurnStatus,
};
use std::{sync::Arc, time::Duration};
use tokio::sync::{Notify, Semaphore};

/// Tasks running at once in one process, unless configured.
pub const DEFAULT_CONCURRENCY: usize = 2;
const DEFAULT_LIST: u32 = 100;
pub const MAX_LIST: u32 = 500;
/// How often an idle runner looks for tasks another process queued.
const POLL: Duration = Duration::from_secs(1);
pub const MAX_PROMPT_BYTES: usize = 256 * 1024;

/// Wakes the runner when a task is queued here.
#[derive(Default)]
pub struct TaskQueue {
    queued: Notify,
}

impl Runtime {
    pub async fn create_task(&self, request: CreateTask) -> Result<TaskRecord, RuntimeError> {
        let row = self.task_row(request).await?;
        tasks::insert(self.store.pool(), &row).await?;
        self.task_queued();
        // As queued: the runner may claim it before the caller reads this.
        Ok(record(row))
    }

    /// A queued task's row, every field checked (also an automation's run).
    pub(super) async fn task_row(&self, request: CreateTask) -> Result<TaskRow, RuntimeError> {
        if request.prompt.trim().is_empty() {
            return Err(RuntimeError::Invalid("prompt must not be empty".into()));
        }
        if request.prompt.len() > MAX_PROMPT_BYTES {
            return Err(RuntimeError::TooLarge(format!(
                "prompt exceeds {MAX_PROMPT_BYTES} bytes"
            )));
        }
        for (field, value) in [
            ("model", &request.model),
            ("model_provider", &request.model_provider),
        ] {
            if value.as_deref().is_some_and(|v| v.trim().is_empty()) {
                return Err(RuntimeError::Invalid(format!("{field} must not be blank")));
            }
        }
        if let Some(thread_id) = &request.thread_id {
            if request.workspace.is_some() {
                return Err(RuntimeError::Invalid(
                    "a given thread keeps its workspace; leave workspace out with thread_id".into(),
                ));
            }
            self.thread(thread_id).await?;
        }
        // Stored canonical, as a thread's; a missing directory is refused now.
        let workspace = request
            .workspace
            .as_deref()
            .map(super::threads::canonical_workspace)
            .transpose()?;
        Ok(TaskRow {
            id: ids::new(ids::TASK),
            status: TaskStatus::Queued.as_str().into(),
            prompt: request.prompt,
            workspace,
            model: request.model,
            model_provider: request.model_provider,
            mode: request.mode.map(|m| m.as_str().to_string()),
            auto_approve: request.auto_approve,
            requeue_on_restart: request.requeue_on_restart,
            thread_id: request.thread_id,
            turn_id: None,
            answer: None,
            error: None,
            cancel_requested: false,
            created_at: clock::now(),
            started_at: None,
            finished_at: None,
            fleet_run_id: None,
            fleet_worker_id: None,
        })
    }

    /// Wakes the runner: a task was queued.
    pub(super) fn task_queued(&self) {
        self.tasks.queued.notify_one();
    }

    pub async fn task(&self, id: &str) -> Result<TaskRecord, RuntimeError> {
        tasks::get(self.store.pool(), id)
            .await?
            .map(record)
            .ok_or_else(|| RuntimeError::NotFound(format!("no task {id}")))
    }

    pub async fn list_tasks(&self, query: ListTasks) -> Result<Vec<TaskRecord>, RuntimeError> {
        let limit = query.limit.unwrap_or(DEFAULT_LIST);
        if !(1..=MAX_LIST).contains(&limit) {
            return Err(RuntimeError::Invalid(format!(
                "limit must be between 1 and {MAX_LIST}"
            )));
        }
        let status = query.status.map(TaskStatus::as_str);
        let rows = tasks::list(self.store.pool(), status, limit).await?;
        Ok(rows.into_iter().map(record).collect())
    }

    /// A queued task is cancelled at once; a running one has its turn
    /// interrupted and ends cancelled. A finished task is a conflict.
    pub async fn cancel_task(&self, id: &str) -> Result<TaskRecord, RuntimeError> {
        let before = self.task(id).await?;
        if before.status.is_final() {
            return Err(RuntimeError::Conflict(format!(
                "task {id} is already {}",
                before.status.as_str()
            )));
        }
        let row = tasks::cancel(self.store.pool(), id, &clock::now())
            .await?
            .ok_or_else(|| RuntimeError::NotFound(format!("no task {id}")))?;
        if let (Some(thread), Some(turn)) = (&row.thread_id, &row.turn_id) {
            if row.status == TaskStatus::Running.as_str() {
                if let Err(error) = self.interrupt_turn(thread, turn).await {
                    tracing::debug!(%error, "cancelling a task: its turn was not running here");
                }
            }
        }
        if let Some(worker) = &row.fleet_worker_id {
            if row.status != TaskStatus::Running.as_str() {
                self.attempt_ends_here(&row.id);
                self.settle_worker_later(worker);
            }
        }
        Ok(record(row))
    }

    /// Removes completed and cancelled tasks (their threads stay).
    pub async fn clear_tasks(&self) -> Result<TasksCleared, RuntimeError> {
        Ok(TasksCleared {
            cleared: tasks::clear(self.store.pool()).await?,
        })
    }

    /// Runs queued tasks, `concurrency` at a time, until the runtime stops;
    /// fleet workers run beside them, bounded by their own runs.
    pub fn run_tasks(self: &Arc<Self>, concurrency: usize) {
        self.run_fleet();
        let runtime = Arc::clone(self);
        let slots = Arc::new(Semaphore::new(concurrency.max(1)));
        tokio::spawn(async move {
            let mut stopped = runtime.stopped.clone();
            loop {
                let Ok(slot) = slots.clone().acquire_owned().await else {
                    return;
                };
                match tasks::claim_next(runtime.store.pool(), &clock::now()).await {
                    Ok(Some(row)) => {
                        let runtime = runtime.clone();
                        tokio::spawn(async move {
                            runtime.run_task(row).await;
                            drop(slot);
                        });
                        continue;
                    }
                    Ok(None) => {}
                    Err(error) => tracing::warn!(%error, "reading the task queue failed"),
                }
                drop(slot);
                tokio::select! {
                    () = runtime.tasks.queued.notified() => {}
                    () = tokio::time::sleep(POLL) => {}
                    _ = stopped.wait_for(|stopped| *stopped) => return,
                }
            }
        });
    }

    pub(super) async fn run_task(&self, row: TaskRow) {
        let id = row.id.clone();
        let (status, answer, error) = match self.task_turn(&row).await {
            Ok(ended) => ended,
            Err(error) => (TaskStatus::Failed, None, Some(error.to_string())),
        };
        let cancelled = tasks::get(self.store.pool(), &id)
            .await
            .ok()
            .flatten()
            .is_some_and(|row| row.cancel_requested);
        // A fleet worker stopped mid-turn was interrupted: it can restart.
        let status = match status {
            TaskStatus::Interrupted | TaskStatus::Failed if cancelled => {
                match row.fleet_worker_id {
                    Some(_) => TaskStatus::Interrupted,
                    None => TaskStatus::Cancelled,
                }
            }
            other => other,
        };
        if row.fleet_worker_id.is_some() {
            self.attempt_ends_here(&id);
        }
        let finished = tasks::finish(
            self.store.pool(),
            &id,
            status.as_str(),
            answer.as_deref(),
            error.as_deref(),
            &clock::now(),
        )
        .await;
        if let Err(error) = finished {
            tracing::error!(%error, task = %id, "recording a task's end failed");
        }
        if let Some(worker) = &row.fleet_worker_id {
            self.settle_worker(worker).await;
        }
    }

    /// Runs the task's turn: its thread first (a new one unless given).
    async fn task_turn(
        &self,
        row: &TaskRow,
    ) -> Result<(TaskStatus, Option<String>, Option<String>), RuntimeError> {
        let thread_id = match &row.thread_id {
            Some(id) => id.clone(),
            None => {
                self.create_thread(CreateThread {
                    workspace: row.workspace.clone(),
                    model: row.model.clone(),
                    model_provider: row.model_provider.clone(),
                    mode: row.mode.clone(),
                    auto_approve: Some(row.auto_approve),
                    ..CreateThread::default()
                })
                .await?
                .id
            }
        };
        // On a given thread, model, provider and mode are this turn's.
        let request = StartTurn {
            prompt: row.prompt.clone(),
            auto_approve: row.auto_approve.then_some(true),
            model: row.model.clone(),
            model_provider: row.model_provider.clone(),
            mode: row.mode.clone(),
            ..StartTurn::default()
        };
        let followed = self.start_followed_turn(&thread_id, request).await?;
        tasks::started(self.store.pool(), &row.id, &thread_id, followed.turn_id()).await?;
        if let Some(worker) = &row.fleet_worker_id {
            self.fleet_worker_started(worker).await;
        }
        // A cancel that came before the turn existed applies now.
        let cancel = tasks::get(self.store.pool(), &row.id).await?;
        if cancel.is_some_and(|row| row.cancel_requested) {
            let _ = self.interrupt_turn(&thread_id, followed.turn_id()).await;
        }
        let end = followed.end().await?;
        Ok(match end.turn.status {
            TurnStatus::Completed => (TaskStatus::Completed, end.answer, None),
            TurnStatus::Interrupted | TurnStatus::Canceled => {
                (TaskStatus::Interrupted, end.answer, end.turn.error)
            }
            _ => (
                TaskStatus::Failed,
                end.answer,
                Some(end.turn.error.unwrap_or_else(|| "the turn failed".into())),
            ),
        })
    }
}

/// Recovery after a restart (see the module comment).
pub(super) async fn recover(conn: &mut sqlx::SqliteConnection) -> Result<(), StoreError> {
    let (requeued, interrupted) = tasks::recover(conn, RESTART_ERROR, &clock::now()).await?;
    if requeued + interrupted > 0 {
        tracing::info!(
            requeued,
            interrupted,
            "tasks left running by an earlier process"
        );
    }
    Ok(())
}

pub(super) fn record(row: TaskRow) -> TaskRecord {
    TaskRecord {
        status: TaskStatus::parse(&row.status).unwrap_or(TaskStatus::Failed),
        mode: row.mode.as_deref().and_then(|m| Mode::parse(m).ok()),
        id: row.id,
        prompt: row.prompt,
        workspace: row.workspace,
        model: row.model,
        model_provider: row.model_provider,
        auto_approve: row.auto_approve,
        requeue_on_restart: row.requeue_on_restart,
        thread_id: row.thread_id,
        turn_id: row.turn_id,
        answer: row.answer,
        error: row.error,
        created_at: row.created_at,
        started_at: row.started_at,
        finished_at: row.finished_at,
    }
}
