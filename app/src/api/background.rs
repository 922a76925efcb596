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
#[cfg(feature = "ssr")]
const TASKS_SHOWN: u32 = 100;
/// The pages show this much of a prompt or an answer; the rest stays on
/// the server (a prompt may be 256 KiB, and the lists are polled).
#[cfg(feature = "ssr")]
const SHOWN_CHARS: usize = 400;

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

#[server(prefix = "/api", endpoint = "tasks", output = crate::api::Json)]
pub async fn load_tasks() -> Result<Vec<TaskRecord>, ServiceError> {
    let query = crate::protocol::ListTasks {
        status: None,
        limit: Some(TASKS_SHOWN),
    };
    let mut tasks = runtime()?.tasks(query).await?;
    for task in &mut tasks {
        clip_task(task);
    }
    Ok(tasks)
}

#[cfg(feature = "ssr")]
pub(super) fn clip(text: &mut String) {
    if let Some((at, _)) = text.char_indices().nth(SHOWN_CHARS) {
        text.truncate(at);
        text.push('…');
    }
}

#[cfg(feature = "ssr")]
fn clip_task(task: &mut TaskRecord) {
    clip(&mut task.prompt);
    if let Some(answer) = &mut task.answer {
        clip(answer);
    }
}

#[server(prefix = "/api", endpoint = "cancel_task", output = crate::api::Json)]
pub async fn cancel_task(id: String) -> Result<(), ServiceError> {
    runtime()?.cancel_task(id).await.map(|_| ())
}

#[server(prefix = "/api", endpoint = "automations", output = crate::api::Json)]
pub async fn load_automations() -> Result<Vec<AutomationCard>, ServiceError> {
    let service = runtime()?;
    let mut cards = Vec::new();
    for mut automation in service.automations().await? {
        let query = crate::protocol::ListAutomationRuns {
            limit: Some(RUNS_SHOWN),
        };
        let mut runs = match service.automation_runs(automation.id.clone(), query).await {
            Ok(runs) => runs,
            // Deleted since the list was read.
            Err(error) if error.status == 404 => continue,
            Err(error) => return Err(error),
        };
        clip(&mut automation.prompt);
        for task in runs.iter_mut().filter_map(|run| run.task.as_mut()) {
            clip_task(task);
        }
        cards.push(AutomationCard { automation, runs });
    }
    Ok(cards)
}

#[server(prefix = "/api", endpoint = "create_automation", output = crate::api::Json)]
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

#[server(prefix = "/api", endpoint = "preview_schedule", output = crate::api::Json)]
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

#[server(prefix = "/api", endpoint = "automation_action", output = crate::api::Json)]
pub async fn automation_action(id: String, action: AutomationCommand) -> Result<(), ServiceError> {
    let service = runtime()?;
    match action {
        AutomationCommand::Run => service.run_automation(id).await.map(|_| ()),
        AutomationCommand::Pause => service.pause_automation(id).await.map(|_| ()),
        AutomationCommand::Resume => service.resume_automation(id).await.map(|_| ()),
        AutomationCommand::Delete => service.delete_automation(id).await,
    }
}
