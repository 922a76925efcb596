//! Firing automations. A scheduled run is claimed by moving the stored
//! next run forward in the transaction that queues its task
//! (`store/automations.rs`), so an occurrence fires once even with two
//! processes. A run whose previous one is still queued or running is
//! recorded skipped: one automation never runs twice at once. On start,
//! runs missed while codewhale was down are made up at most once
//! (`CatchUp`).

use super::{not_found, parse_time, run_request, schedule_of, Runtime};
use crate::{
    clock,
    runtime::{error::RuntimeError, ids, tasks::record as task_record},
    store::automations::{self as store, AutomationRow, RunRow},
};
use chrono::{DateTime, Utc};
use protocol::{AutomationRun, ListAutomationRuns, RunTrigger, TaskStatus};
use serde::Deserialize;
use std::{sync::Arc, time::Duration};

/// How long the scheduler sleeps at most: changes another process made,
/// and a test's clock moving, are seen this soon.
const POLL: Duration = Duration::from_secs(1);
const DEFAULT_RUNS: u32 = 20;
pub const MAX_RUNS: u32 = 200;
const OVERLAP: &str = "the previous run was still queued or running";
const NO_CATCH_UP: &str = "missed while codewhale was not running (catch-up is off)";

/// What happens on start to runs missed while codewhale was down.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CatchUp {
    /// One run for however many were missed.
    #[default]
    One,
    /// None; the next run is the next scheduled one.
    None,
}

impl Runtime {
    /// Runs it now (a manual run), unless its last run is still going.
    pub async fn run_automation(&self, id: &str) -> Result<AutomationRun, RuntimeError> {
        let row = self.automation_row(id).await?;
        self.fire(&row, RunTrigger::Manual, self.clock.wall())
            .await?
            .ok_or_else(|| not_found(id))
    }

    /// Newest first.
    pub async fn automation_runs(
        &self,
        id: &str,
        query: ListAutomationRuns,
    ) -> Result<Vec<AutomationRun>, RuntimeError> {
        let limit = query.limit.unwrap_or(DEFAULT_RUNS);
        if !(1..=MAX_RUNS).contains(&limit) {
            return Err(RuntimeError::Invalid(format!(
                "limit must be between 1 and {MAX_RUNS}"
            )));
        }
        self.automation_row(id).await?;
        let runs = store::runs(self.store.pool(), id, limit).await?;
        Ok(runs
            .into_iter()
            .map(|(run, task)| run_record(run, task.map(task_record)))
            .collect())
    }

    /// Fires every active automation whose time has come; what the
    /// scheduler does each time it wakes. Returns the runs it recorded.
    pub async fn run_due_automations(&self) -> Result<Vec<AutomationRun>, RuntimeError> {
        self.fire_due(RunTrigger::Schedule).await
    }

    /// Starts the scheduler: first the catch-up of runs missed while no
    /// process ran them, then every run as its time comes, until the
    /// runtime stops.
    pub fn run_automations(self: &Arc<Self>, catch_up: CatchUp) {
        let runtime = Arc::clone(self);
        tokio::spawn(async move {
            let start = match catch_up {
                CatchUp::One => runtime.fire_due(RunTrigger::CatchUp).await,
                CatchUp::None => runtime.skip_missed().await,
            };
            if let Err(error) = start {
                tracing::warn!(%error, "catching up missed automation runs failed");
            }
            let mut stopped = runtime.stopped.clone();
            loop {
                if let Err(error) = runtime.run_due_automations().await {
                    tracing::warn!(%error, "running due automations failed");
                }
                let wait = runtime.until_next().await;
                tokio::select! {
                    () = runtime.scheduler.changed.notified() => {}
                    () = tokio::time::sleep(wait) => {}
                    _ = stopped.wait_for(|stopped| *stopped) => return,
                }
            }
        });
    }

    async fn fire_due(&self, trigger: RunTrigger) -> Result<Vec<AutomationRun>, RuntimeError> {
        let now = self.clock.wall();
        let mut fired = Vec::new();
        for row in store::due(self.store.pool(), &clock::format(now)).await? {
            match self.fire(&row, trigger, now).await {
                Ok(Some(run)) => fired.push(run),
                Ok(None) => {}
                // One automation's bad state must not stop the others.
                Err(error) => {
                    tracing::warn!(%error, automation = %row.id, "an automation run failed to start")
                }
            }
        }
        Ok(fired)
    }

    /// With catch-up off: each missed run is recorded skipped and the
    /// schedule moves on.
    async fn skip_missed(&self) -> Result<Vec<AutomationRun>, RuntimeError> {
        let now = self.clock.wall();
        let mut skipped = Vec::new();
        for row in store::due(self.store.pool(), &clock::format(now)).await? {
            let Some(expected) = row.next_run_at.clone() else {
                continue;
            };
            let next = next_run(&row, now)?;
            let run = new_run(&row, RunTrigger::CatchUp, Some(expected.clone()), now);
            let mut tx = store::begin(self.store.pool()).await?;
            if !store::advance(&mut tx, &row.id, &expected, next.as_deref()).await? {
                continue;
            }
            let run = RunRow {
                skipped: Some(NO_CATCH_UP.into()),
                ..run
            };
            store::insert_run(&mut tx, &run, None).await?;
            store::commit(tx).await?;
            skipped.push(run_record(run, None));
        }
        Ok(skipped)
    }

    /// Records one run of `row`: its task queued, or skipped when the
    /// previous run is still going. None when a scheduled run was
    /// claimed by someone else first.
    async fn fire(
        &self,
        row: &AutomationRow,
        trigger: RunTrigger,
        now: DateTime<Utc>,
    ) -> Result<Option<AutomationRun>, RuntimeError> {
        let scheduled_for = match trigger {
            RunTrigger::Manual => None,
            _ => row.next_run_at.clone(),
        };
        // Checked before the transaction: building a task reads the store.
        // A scheduled run that cannot start (its workspace was removed) is
        // recorded skipped with the reason, and the automation paused.
        let task = match self.task_row(run_request(row)).await {
            Ok(task) => Ok(task),
            Err(error @ RuntimeError::Store(_)) => return Err(error),
            Err(error) if trigger == RunTrigger::Manual => return Err(error),
            Err(error) => Err(format!("could not start: {error}")),
        };
        let mut tx = store::begin(self.store.pool()).await?;
        if let Some(expected) = &scheduled_for {
            let next = next_run(row, now)?;
            if !store::advance(&mut tx, &row.id, expected, next.as_deref()).await? {
                return Ok(None);
            }
        }
        let previous = store::last_task_status(&mut tx, &row.id).await?;
        let busy = previous
            .as_deref()
            .and_then(TaskStatus::parse)
            .is_some_and(|status| !status.is_final());
        if busy && trigger == RunTrigger::Manual {
            // Refused, not recorded: the caller is told at once.
            return Err(RuntimeError::Conflict(format!(
                "automation {} is already running: {OVERLAP}",
                row.id
            )));
        }
        let mut run = new_run(row, trigger, scheduled_for, now);
        let task = match task {
            _ if busy => {
                run.skipped = Some(OVERLAP.into());
                None
            }
            Err(reason) => {
                // It will not fix itself: paused until someone does.
                store::pause_broken(&mut tx, &row.id, &clock::format(now)).await?;
                run.skipped = Some(format!("{reason}; paused until that is fixed"));
                None
            }
            Ok(task) => {
                run.task_id = Some(task.id.clone());
                Some(task)
            }
        };
        store::insert_run(&mut tx, &run, task.as_ref()).await?;
        store::commit(tx).await?;
        if task.is_some() {
            self.task_queued();
        }
        Ok(Some(run_record(run, task.map(task_record))))
    }

    /// How long until the soonest next run, at most `POLL`.
    async fn until_next(&self) -> Duration {
        let earliest = store::earliest(self.store.pool()).await.ok().flatten();
        let Some(at) = earliest.as_deref().and_then(parse_time) else {
            return POLL;
        };
        (at - self.clock.wall())
            .to_std()
            .unwrap_or(Duration::ZERO)
            .min(POLL)
    }
}

/// The run after the one due now, counted from the one due.
fn next_run(row: &AutomationRow, now: DateTime<Utc>) -> Result<Option<String>, RuntimeError> {
    let anchor = row
        .next_run_at
        .as_deref()
        .and_then(parse_time)
        .unwrap_or(now);
    Ok(schedule_of(row)?.next_after(now, anchor).map(clock::format))
}

fn new_run(
    row: &AutomationRow,
    trigger: RunTrigger,
    scheduled_for: Option<String>,
    now: DateTime<Utc>,
) -> RunRow {
    RunRow {
        id: ids::new(ids::AUTOMATION_RUN),
        automation_id: row.id.clone(),
        trigger: trigger_name(trigger).into(),
        scheduled_for,
        skipped: None,
        task_id: None,
        created_at: clock::format(now),
    }
}

fn trigger_name(trigger: RunTrigger) -> &'static str {
    match trigger {
        RunTrigger::Schedule => "schedule",
        RunTrigger::CatchUp => "catch_up",
        RunTrigger::Manual => "manual",
    }
}

fn run_record(run: RunRow, task: Option<protocol::TaskRecord>) -> AutomationRun {
    let trigger = match run.trigger.as_str() {
        "catch_up" => RunTrigger::CatchUp,
        "manual" => RunTrigger::Manual,
        _ => RunTrigger::Schedule,
    };
    AutomationRun {
        id: run.id,
        automation_id: run.automation_id,
        trigger,
        scheduled_for: run.scheduled_for,
        created_at: run.created_at,
        skipped: run.skipped,
        task_id: run.task_id,
        task,
    }
}
