//! Server functions of work that runs without a client: the task queue and
//! automations. The runtime holds every rule (schedules, overlap, what may
//! be cancelled); these only carry the calls. Actions answer nothing: the
//! pages reload their lists, which they poll anyway.

use crate::error::ServiceError;
use crate::protocol::{AutomationRecord, AutomationRun, SchedulePreview, TaskRecord};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use crate::service::service as runtime;

/// Runs shown under each automation.
pub const RUNS_SHOWN: u32 = 5;
/// Tasks the queue page shows.
const TASKS_SHOWN: u32 = 100;

/// An automation and its latest runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutomationCard {
    pub automation: AutomationRecord,
    pub runs: Vec<AutomationRun>,
}

/// What the automations page's buttons do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AutomationCommand {
    Run,
    Pause,
    Resume,
    Delete,
}

/// The form's fields, as typed: the runtime checks them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutomationDraft {
    pub name: String,
    pub prompt: String,
    pub schedule: Option<String>,
    pub interval_seconds: Option<u64>,
    pub timezone: Option<String>,
    pub auto_approve: bool,
}

#[server(prefix = "/api", endpoint = "tasks")]
pub async fn load_tasks() -> Result<Vec<TaskRecord>, ServiceError> {
    let query = crate::protocol::ListTasks {
        status: None,
        limit: Some(TASKS_SHOWN),
    };
    runtime()?.tasks(query).await
}

#[server(prefix = "/api", endpoint = "cancel_task")]
pub async fn cancel_task(id: String) -> Result<(), ServiceError> {
    runtime()?.cancel_task(id).await.map(|_| ())
}

#[server(prefix = "/api", endpoint = "automations")]
pub async fn load_automations() -> Result<Vec<AutomationCard>, ServiceError> {
    let service = runtime()?;
    let mut cards = Vec::new();
    for automation in service.automations().await? {
        let query = crate::protocol::ListAutomationRuns {
            limit: Some(RUNS_SHOWN),
        };
        let runs = service.automation_runs(automation.id.clone(), query).await?;
        cards.push(AutomationCard { automation, runs });
    }
    Ok(cards)
}

#[server(prefix = "/api", endpoint = "create_automation")]
pub async fn create_automation(draft: AutomationDraft) -> Result<(), ServiceError> {
    let request = crate::protocol::CreateAutomation {
        name: draft.name,
        prompt: draft.prompt,
        schedule: draft.schedule,
        interval_seconds: draft.interval_seconds,
        timezone: draft.timezone,
        auto_approve: draft.auto_approve,
        ..Default::default()
    };
    runtime()?.create_automation(request).await.map(|_| ())
}

#[server(prefix = "/api", endpoint = "preview_schedule")]
pub async fn preview_schedule(
    schedule: Option<String>,
    interval_seconds: Option<u64>,
    timezone: Option<String>,
) -> Result<SchedulePreview, ServiceError> {
    let query = crate::protocol::PreviewSchedule {
        schedule,
        interval_seconds,
        timezone,
    };
    runtime()?.preview_schedule(query).await
}

#[server(prefix = "/api", endpoint = "automation_action")]
pub async fn automation_action(id: String, action: AutomationCommand) -> Result<(), ServiceError> {
    let service = runtime()?;
    match action {
        AutomationCommand::Run => service.run_automation(id).await.map(|_| ()),
        AutomationCommand::Pause => service.pause_automation(id).await.map(|_| ()),
        AutomationCommand::Resume => service.resume_automation(id).await.map(|_| ()),
        AutomationCommand::Delete => service.delete_automation(id).await,
    }
}
