//! Automations: a prompt run on a schedule, each run a task (`tasks.rs`).
//! This module holds the operations on automations; `runs.rs` fires them
//! (on schedule, as a catch-up on start, or by hand) and `schedule.rs`
//! knows when. Times come from the runtime's clock, so tests move it.

mod runs;
pub mod schedule;

pub use runs::{CatchUp, MAX_RUNS};

use super::{error::RuntimeError, ids, threads::canonical_workspace, Runtime};
use crate::{
    clock,
    store::automations::{self as store, AutomationRow},
};
use chrono::{DateTime, Utc};
use protocol::{
    AutomationRecord, AutomationState, CreateAutomation, CreateTask, Mode, PatchAutomation,
    PreviewSchedule, SchedulePreview,
};
use schedule::Schedule;
use tokio::sync::Notify;

pub const MAX_NAME_CHARS: usize = 200;
/// Runs shown by the preview.
const PREVIEW_RUNS: usize = 5;
/// Reads and writes a change tries before giving up on a busy automation.
const WRITE_ATTEMPTS: usize = 5;

/// Wakes the scheduler when an automation changes here.
#[derive(Default)]
pub struct Scheduler {
    changed: Notify,
}

impl Runtime {
    pub async fn create_automation(
        &self,
        request: CreateAutomation,
    ) -> Result<AutomationRecord, RuntimeError> {
        let name = checked_name(&request.name)?;
        let schedule = Schedule::parse(
            request.schedule.as_deref(),
            request.interval_seconds,
            request.timezone.as_deref(),
        )?;
        let workspace = match &request.workspace {
            Some(path) => canonical_workspace(path)?,
            None => canonical_workspace(&self.default_workspace.display().to_string())?,
        };
        let now = self.clock.wall();
        let stamp = clock::format(now);
        let mut row = AutomationRow {
            id: ids::new(ids::AUTOMATION),
            name,
            prompt: request.prompt,
            schedule: request.schedule.map(|s| s.trim().to_string()),
            interval_seconds: request.interval_seconds.map(|s| s as i64),
            timezone: schedule.timezone().into(),
            workspace,
            model: request.model,
            model_provider: request.model_provider,
            mode: request.mode.map(|m| m.as_str().to_string()),
            auto_approve: request.auto_approve,
            paused: request.paused,
            next_run_at: None,
            last_run_at: None,
            created_at: stamp.clone(),
            updated_at: stamp,
            version: 0,
        };
        // The prompt, model and provider pass the checks a task's do.
        self.task_row(run_request(&row)).await?;
        if !row.paused {
            row.next_run_at = schedule.next_after(now, now).map(clock::format);
        }
        store::insert(self.store.pool(), &row).await?;
        self.scheduler.changed.notify_one();
        Ok(record(row))
    }

    pub async fn automation(&self, id: &str) -> Result<AutomationRecord, RuntimeError> {
        Ok(record(self.automation_row(id).await?))
    }

    pub async fn list_automations(&self) -> Result<Vec<AutomationRecord>, RuntimeError> {
        let rows = store::list(self.store.pool()).await?;
        Ok(rows.into_iter().map(record).collect())
    }

    /// Changes what is given. A new schedule or time zone counts its next
    /// run from now.
    pub async fn patch_automation(
        &self,
        id: &str,
        patch: PatchAutomation,
    ) -> Result<AutomationRecord, RuntimeError> {
        if patch == PatchAutomation::default() {
            return Err(RuntimeError::Invalid("nothing to change".into()));
        }
        if patch.schedule.is_some() && patch.interval_seconds.is_some() {
            return Err(RuntimeError::Invalid(
                "give schedule or interval_seconds, not both".into(),
            ));
        }
        let name = patch.name.as_deref().map(checked_name).transpose()?;
        let workspace = patch
            .workspace
            .as_deref()
            .map(canonical_workspace)
            .transpose()?;
        self.modify(id, true, |row, now| {
            if let Some(name) = &name {
                row.name = name.clone();
            }
            if let Some(prompt) = &patch.prompt {
                row.prompt = prompt.clone();
            }
            if let Some(cron) = &patch.schedule {
                row.schedule = Some(cron.trim().to_string());
                row.interval_seconds = None;
            }
            if let Some(secs) = patch.interval_seconds {
                row.schedule = None;
                row.interval_seconds = Some(secs as i64);
            }
            if let Some(zone) = &patch.timezone {
                row.timezone = zone.clone();
            }
            let schedule = schedule_of(row)?;
            row.timezone = schedule.timezone().into();
            if let Some(path) = &workspace {
                row.workspace = path.clone();
            }
            if let Some(model) = &patch.model {
                row.model = model.clone();
            }
            if let Some(provider) = &patch.model_provider {
                row.model_provider = provider.clone();
            }
            if let Some(mode) = patch.mode {
                row.mode = mode.map(|m| m.as_str().to_string());
            }
            if let Some(auto_approve) = patch.auto_approve {
                row.auto_approve = auto_approve;
            }
            let retimed = patch.schedule.is_some()
                || patch.interval_seconds.is_some()
                || patch.timezone.is_some();
            if retimed && !row.paused {
                row.next_run_at = schedule.next_after(now, now).map(clock::format);
            }
            Ok(())
        })
        .await
    }

    /// Deletes it and its run history; its tasks and threads stay.
    pub async fn delete_automation(&self, id: &str) -> Result<(), RuntimeError> {
        if store::delete(self.store.pool(), id).await? {
            Ok(())
        } else {
            Err(not_found(id))
        }
    }

    /// No runs until resumed; a run already going goes on.
    pub async fn pause_automation(&self, id: &str) -> Result<AutomationRecord, RuntimeError> {
        self.modify(id, false, |row, _| {
            row.paused = true;
            row.next_run_at = None;
            Ok(())
        })
        .await
    }

    /// Runs again from the next scheduled time after now; what fell in the
    /// pause is not made up. Refused while its runs could not start (its
    /// workspace is gone): fix that first.
    pub async fn resume_automation(&self, id: &str) -> Result<AutomationRecord, RuntimeError> {
        self.modify(id, true, |row, now| {
            if row.paused {
                row.paused = false;
                row.next_run_at = schedule_of(row)?.next_after(now, now).map(clock::format);
            }
            Ok(())
        })
        .await
    }

    /// A schedule in words and its next runs, before it is saved.
    pub fn preview_schedule(
        &self,
        query: PreviewSchedule,
    ) -> Result<SchedulePreview, RuntimeError> {
        // No query schema can say "exactly one of two parameters": 409.
        if query.schedule.is_some() == query.interval_seconds.is_some() {
            return Err(RuntimeError::Conflict(schedule::ONE_SCHEDULE.into()));
        }
        let schedule = Schedule::parse(
            query.schedule.as_deref(),
            query.interval_seconds,
            query.timezone.as_deref(),
        )?;
        Ok(SchedulePreview {
            description: schedule.describe(),
            timezone: schedule.timezone().into(),
            next_runs: schedule.upcoming(self.clock.wall(), PREVIEW_RUNS),
        })
    }

    async fn automation_row(&self, id: &str) -> Result<AutomationRow, RuntimeError> {
        store::get(self.store.pool(), id)
            .await?
            .ok_or_else(|| not_found(id))
    }

    /// Applies `change` to the stored row and writes it if nothing else
    /// wrote it meanwhile (a pause, the scheduler, another patch), else
    /// again from a fresh read. `check`: the result must make a valid task.
    async fn modify(
        &self,
        id: &str,
        check: bool,
        change: impl Fn(&mut AutomationRow, DateTime<Utc>) -> Result<(), RuntimeError>,
    ) -> Result<AutomationRecord, RuntimeError> {
        for _ in 0..WRITE_ATTEMPTS {
            let mut row = self.automation_row(id).await?;
            let now = self.clock.wall();
            change(&mut row, now)?;
            if check {
                self.task_row(run_request(&row)).await?;
            }
            row.updated_at = clock::format(now);
            if store::update(self.store.pool(), &row).await? {
                row.version += 1;
                self.scheduler.changed.notify_one();
                return Ok(record(row));
            }
        }
        Err(RuntimeError::Conflict(format!(
            "automation {id} kept changing while this was written; try again"
        )))
    }
}

/// Counted as sent, as the OpenAPI document's `maxLength` counts.
fn checked_name(name: &str) -> Result<String, RuntimeError> {
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(RuntimeError::Invalid(format!(
            "name is longer than {MAX_NAME_CHARS} characters"
        )));
    }
    let name = name.trim();
    if name.is_empty() {
        return Err(RuntimeError::Invalid("name must not be empty".into()));
    }
    Ok(name.to_string())
}

fn schedule_of(row: &AutomationRow) -> Result<Schedule, RuntimeError> {
    Schedule::parse(
        row.schedule.as_deref(),
        row.interval_seconds.map(|s| s.max(0) as u64),
        Some(&row.timezone),
    )
}

/// The task a run queues: a new thread in the automation's workspace.
fn run_request(row: &AutomationRow) -> CreateTask {
    CreateTask {
        prompt: row.prompt.clone(),
        workspace: Some(row.workspace.clone()),
        model: row.model.clone(),
        model_provider: row.model_provider.clone(),
        mode: row.mode.as_deref().and_then(|m| Mode::parse(m).ok()),
        auto_approve: row.auto_approve,
        ..CreateTask::default()
    }
}

fn not_found(id: &str) -> RuntimeError {
    RuntimeError::NotFound(format!("no automation {id}"))
}

fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

fn record(row: AutomationRow) -> AutomationRecord {
    let schedule = schedule_of(&row);
    let description = match &schedule {
        Ok(schedule) => schedule.describe(),
        Err(error) => format!("invalid schedule: {error}"),
    };
    let next_run_local = match (&schedule, row.next_run_at.as_deref().and_then(parse_time)) {
        (Ok(schedule), Some(at)) => Some(schedule.local(at)),
        _ => None,
    };
    AutomationRecord {
        state: if row.paused {
            AutomationState::Paused
        } else {
            AutomationState::Active
        },
        mode: row.mode.as_deref().and_then(|m| Mode::parse(m).ok()),
        interval_seconds: row.interval_seconds.map(|s| s.max(0) as u64),
        description,
        id: row.id,
        name: row.name,
        prompt: row.prompt,
        schedule: row.schedule,
        timezone: row.timezone,
        workspace: row.workspace,
        model: row.model,
        model_provider: row.model_provider,
        auto_approve: row.auto_approve,
        next_run_at: row.next_run_at,
        next_run_local,
        last_run_at: row.last_run_at,
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}
