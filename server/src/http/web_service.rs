//! The runtime as the Leptos app sees it (`app::service::RuntimeService`):
//! each call is a `Runtime` operation, its error mapped to the app's typed
//! error here and only here. It is handed to the app for signed-in
//! requests only (`provide_for_viewer`).

use crate::{
    http::{
        auth::{current_device, Viewer},
        pairing::PairingLinks,
    },
    runtime::{devices::Manager, error::RuntimeError, Runtime},
};
use app::service::{FleetCommand, McpCommand, Reply, RuntimeService, ServiceError};
use protocol::{
    AnswerUserInput, ApprovalDecided, CreatePairing, CreateThread, DecideApproval, DeviceRecord,
    DeviceRevoked, ListThreads, PairingCreated, PatchDevice, PatchThread, ProviderModels,
    StartTurn, SteerTurn, ThreadDetail, ThreadRecord, ThreadSummary, TurnItemRecord, TurnRecord,
    TurnStarted, UsageOverview, UserInputAnswered, Workbench,
};
use protocol::{
    ApplyReview, EditLastTurn, ForkAtUserMessage, ForkedAt, Rerun, RestoreSnapshot, Restored,
    RetryTurn, RevertReview, ReviewApplied, ReviewReverted, SnapshotRecord, Undone, WorkspaceDiff,
    WorkspaceFile, WorkspaceListing, WorkspacePathQuery,
};
use protocol::{
    AutomationRecord, AutomationRun, CreateAutomation, ListAutomationRuns, ListTasks,
    PreviewSchedule, SchedulePreview, TaskRecord,
};
use protocol::{CreateFleetRun, FleetRunDetail, FleetRuns, ListFleetRuns};
use protocol::{CreateMcpServer, ListMcpTools, McpServerRecord, McpToolRecord, PatchMcpServer};
use protocol::{ImportSkill, ListSkills, PatchSkill, SkillRecord};
use protocol::{ListSessions, SessionMetadata};
use std::sync::Arc;

pub struct WebService {
    pub runtime: Arc<Runtime>,
    pub workbench: Workbench,
    pub pairing: Option<Arc<PairingLinks>>,
}

impl WebService {
    /// Runs inside every page render and server function: the app gets the
    /// runtime only if the auth middleware found a signed-in viewer, so a
    /// visitor's server-function call is a 401 without any check of its own.
    pub fn provide_for_viewer(service: &Arc<dyn RuntimeService>) {
        if Viewer::current().is_authenticated() {
            leptos::prelude::provide_context(service.clone());
        }
    }
}

/// Who asks, read while the request context is there (before the reply's
/// future runs).
fn caller() -> (Viewer, Option<String>) {
    (Viewer::current(), current_device())
}

/// The caller as a device manager.
fn manager((viewer, device): &(Viewer, Option<String>)) -> Result<Manager<'_>, RuntimeError> {
    viewer.manager(device.as_deref()).ok_or_else(|| {
        RuntimeError::Forbidden("only the computer or a paired device manages devices".into())
    })
}

/// The Leptos edge's one mapping of runtime errors.
pub fn service_error(error: RuntimeError) -> ServiceError {
    if let Some(detail) = error.internal_detail() {
        tracing::error!(error = %detail, "a server function failed");
    }
    ServiceError::new(error.kind().status(), error.to_string())
}

fn reply<'a, T: Send + 'a>(
    work: impl std::future::Future<Output = Result<T, RuntimeError>> + Send + 'a,
) -> Reply<'a, T> {
    Box::pin(async move { work.await.map_err(service_error) })
}

impl RuntimeService for WebService {
    fn tasks(&self, query: ListTasks) -> Reply<'_, Vec<TaskRecord>> {
        reply(async move { self.runtime.list_tasks(query).await })
    }

    fn cancel_task(&self, id: String) -> Reply<'_, TaskRecord> {
        reply(async move { self.runtime.cancel_task(&id).await })
    }

    fn automations(&self) -> Reply<'_, Vec<AutomationRecord>> {
        reply(async move { self.runtime.list_automations().await })
    }

    fn automation_runs(
        &self,
        id: String,
        query: ListAutomationRuns,
    ) -> Reply<'_, Vec<AutomationRun>> {
        reply(async move { self.runtime.automation_runs(&id, query).await })
    }

    fn create_automation(&self, request: CreateAutomation) -> Reply<'_, AutomationRecord> {
        reply(async move { self.runtime.create_automation(request).await })
    }

    fn preview_schedule(&self, query: PreviewSchedule) -> Reply<'_, SchedulePreview> {
        reply(async move { self.runtime.preview_schedule(query) })
    }

    fn run_automation(&self, id: String) -> Reply<'_, AutomationRun> {
        reply(async move { self.runtime.run_automation(&id).await })
    }

    fn pause_automation(&self, id: String) -> Reply<'_, AutomationRecord> {
        reply(async move { self.runtime.pause_automation(&id).await })
    }

    fn resume_automation(&self, id: String) -> Reply<'_, AutomationRecord> {
        reply(async move { self.runtime.resume_automation(&id).await })
    }

    fn delete_automation(&self, id: String) -> Reply<'_, ()> {
        reply(async move { self.runtime.delete_automation(&id).await })
    }

    fn fleet_runs(&self, query: ListFleetRuns) -> Reply<'_, FleetRuns> {
        reply(async move { self.runtime.fleet_runs(query).await })
    }

    fn fleet_run(&self, id: String) -> Reply<'_, FleetRunDetail> {
        reply(async move { self.runtime.fleet_run(&id).await })
    }

    fn create_fleet_run(&self, request: CreateFleetRun) -> Reply<'_, FleetRunDetail> {
        reply(async move { self.runtime.create_fleet_run(request).await })
    }

    fn fleet_command(&self, id: String, command: FleetCommand) -> Reply<'_, ()> {
        reply(async move {
            let runtime = &self.runtime;
            match command {
                FleetCommand::StopRun => runtime.stop_fleet_run(&id).await.map(drop),
                FleetCommand::CleanUpRun => runtime.clean_up_fleet_run(&id).await.map(drop),
                FleetCommand::InterruptWorker => runtime.interrupt_worker(&id).await.map(drop),
                FleetCommand::RestartWorker => runtime.restart_worker(&id).await.map(drop),
            }
        })
    }

    fn skills(&self) -> Reply<'_, Vec<SkillRecord>> {
        reply(async move { self.runtime.list_skills(ListSkills::default()).await })
    }

    fn patch_skill(&self, name: String, patch: PatchSkill) -> Reply<'_, SkillRecord> {
        reply(async move { self.runtime.patch_skill(&name, patch).await })
    }

    fn import_skill(&self, request: ImportSkill) -> Reply<'_, SkillRecord> {
        reply(async move { self.runtime.import_skill(request).await })
    }

    fn mcp_servers(&self) -> Reply<'_, Vec<McpServerRecord>> {
        reply(async move { Ok(self.runtime.list_mcp_servers().await?.servers) })
    }

    fn mcp_tools(&self, name: String) -> Reply<'_, Vec<McpToolRecord>> {
        reply(async move {
            let query = ListMcpTools { server: Some(name) };
            Ok(self.runtime.mcp_tools(query).await?.tools)
        })
    }

    fn add_mcp_server(&self, request: CreateMcpServer) -> Reply<'_, McpServerRecord> {
        reply(async move { self.runtime.add_mcp_server(request).await })
    }

    fn sessions(&self, search: String) -> Reply<'_, Vec<SessionMetadata>> {
        reply(async move {
            let query = ListSessions {
                search: Some(search).filter(|s| !s.trim().is_empty()),
                limit: Some(crate::runtime::sessions::MAX_LIMIT),
            };
            Ok(self.runtime.list_sessions(query).await?.sessions)
        })
    }

    fn resume_session(&self, id: String) -> Reply<'_, ThreadRecord> {
        reply(async move { self.runtime.resume_session_as_thread(&id).await })
    }

    fn delete_session(&self, id: String) -> Reply<'_, ()> {
        reply(async move { self.runtime.delete_session(&id).await })
    }

    fn mcp_command(&self, name: String, command: McpCommand) -> Reply<'_, ()> {
        reply(async move {
            let runtime = &self.runtime;
            let patch = |patch: PatchMcpServer| {
                let name = name.clone();
                async move { runtime.patch_mcp_server(&name, patch).await.map(drop) }
            };
            match command {
                McpCommand::Enable | McpCommand::Disable => {
                    let enabled = Some(command == McpCommand::Enable);
                    patch(PatchMcpServer {
                        enabled,
                        ..Default::default()
                    })
                    .await
                }
                McpCommand::Trust | McpCommand::Distrust => {
                    let trusted = Some(command == McpCommand::Trust);
                    patch(PatchMcpServer {
                        trusted,
                        ..Default::default()
                    })
                    .await
                }
                McpCommand::Reload => runtime.reload_mcp_server(&name).await.map(drop),
                McpCommand::Delete => runtime.delete_mcp_server(&name).await,
            }
        })
    }

    fn threads(&self, query: ListThreads) -> Reply<'_, Vec<ThreadSummary>> {
        reply(async move { self.runtime.thread_summaries(&query).await })
    }

    fn thread(&self, id: String) -> Reply<'_, ThreadDetail> {
        reply(async move { self.runtime.thread(&id).await })
    }

    fn thread_items(&self, id: String, start: usize, end: usize) -> Reply<'_, Vec<TurnItemRecord>> {
        reply(async move { self.runtime.thread_items(&id, start, end).await })
    }

    fn create_thread(&self, request: CreateThread) -> Reply<'_, ThreadRecord> {
        reply(self.runtime.create_thread(request))
    }

    fn patch_thread(&self, id: String, patch: PatchThread) -> Reply<'_, ThreadRecord> {
        reply(async move { self.runtime.patch_thread(&id, patch).await })
    }

    fn fork_thread(&self, id: String) -> Reply<'_, ThreadRecord> {
        reply(async move { self.runtime.fork_thread(&id).await })
    }

    fn start_turn(&self, id: String, request: StartTurn) -> Reply<'_, TurnStarted> {
        reply(async move { self.runtime.start_turn(&id, request).await })
    }

    fn steer_turn(&self, id: String, turn: String, request: SteerTurn) -> Reply<'_, TurnRecord> {
        reply(async move { self.runtime.steer_turn(&id, &turn, request).await })
    }

    fn interrupt_turn(&self, id: String, turn: String) -> Reply<'_, TurnRecord> {
        reply(async move { self.runtime.interrupt_turn(&id, &turn).await })
    }

    fn decide_approval(&self, id: String, decision: DecideApproval) -> Reply<'_, ApprovalDecided> {
        reply(async move { self.runtime.decide_approval(&id, decision).await })
    }

    fn answer_user_input(
        &self,
        thread: String,
        input: String,
        answers: AnswerUserInput,
    ) -> Reply<'_, UserInputAnswered> {
        reply(async move {
            self.runtime
                .answer_user_input(&thread, &input, answers)
                .await
        })
    }

    fn usage_overview(&self, days: u32) -> Reply<'_, UsageOverview> {
        reply(self.runtime.usage_overview(days))
    }

    fn providers(&self) -> Vec<ProviderModels> {
        self.runtime.providers()
    }

    fn devices(&self) -> Reply<'_, Vec<DeviceRecord>> {
        let caller = caller();
        reply(async move {
            let by = manager(&caller)?;
            self.runtime.devices().list(by).await
        })
    }

    fn rename_device(&self, id: String, patch: PatchDevice) -> Reply<'_, DeviceRecord> {
        let caller = caller();
        reply(async move {
            let by = manager(&caller)?;
            self.runtime.devices().rename(by, &id, &patch.name).await
        })
    }

    fn revoke_device(&self, id: String) -> Reply<'_, DeviceRevoked> {
        let caller = caller();
        reply(async move {
            let by = manager(&caller)?;
            self.runtime.devices().revoke(by, &id).await?;
            Ok(DeviceRevoked { id, revoked: true })
        })
    }

    fn create_pairing(&self, request: CreatePairing) -> Reply<'_, PairingCreated> {
        let by_computer = Viewer::current().is_computer();
        let created =
            PairingLinks::create(self.pairing.as_deref(), &self.runtime, by_computer, request);
        reply(async move { created })
    }

    fn browse(&self, id: String, query: WorkspacePathQuery) -> Reply<'_, WorkspaceListing> {
        reply(async move { self.runtime.browse_thread_workspace(&id, query).await })
    }

    fn file(&self, id: String, query: WorkspacePathQuery) -> Reply<'_, WorkspaceFile> {
        reply(async move { self.runtime.read_thread_file(&id, query).await })
    }

    fn diff(&self, id: String) -> Reply<'_, WorkspaceDiff> {
        reply(async move { self.runtime.thread_diff(&id).await })
    }

    fn thread_snapshots(&self, id: String) -> Reply<'_, Vec<SnapshotRecord>> {
        reply(async move { self.runtime.thread_snapshots(&id, Some(100)).await })
    }

    fn undo(&self, id: String) -> Reply<'_, Undone> {
        reply(async move { self.runtime.undo(&id).await })
    }

    fn retry(&self, id: String, request: RetryTurn) -> Reply<'_, Rerun> {
        reply(async move { self.runtime.retry(&id, request).await })
    }

    fn edit_last_turn(&self, id: String, request: EditLastTurn) -> Reply<'_, Rerun> {
        reply(async move { self.runtime.edit_last_turn(&id, request).await })
    }

    fn fork_at_user_message(&self, id: String, request: ForkAtUserMessage) -> Reply<'_, ForkedAt> {
        reply(async move { self.runtime.fork_at_user_message(&id, request).await })
    }

    fn restore_snapshot(&self, id: String, request: RestoreSnapshot) -> Reply<'_, Restored> {
        reply(async move { self.runtime.restore_snapshot(&id, request).await })
    }

    fn apply_review(&self, id: String, request: ApplyReview) -> Reply<'_, ReviewApplied> {
        reply(async move { self.runtime.apply_review(&id, request).await })
    }

    fn revert_review(&self, id: String, request: RevertReview) -> Reply<'_, ReviewReverted> {
        reply(async move { self.runtime.revert_review(&id, request).await })
    }

    fn workbench(&self) -> Workbench {
        self.workbench.clone()
    }
}
