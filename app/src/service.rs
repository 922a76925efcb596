//! The runtime as the Leptos app sees it. The server implements this over
//! its `Runtime` (`server/src/http/web_service.rs`) and provides it as
//! context only to a signed-in viewer's requests, so server functions hold
//! no rules of their own: not even who may call them.

pub use crate::api::{FleetCommand, McpCommand};
use crate::protocol::{
    AnswerUserInput, ApprovalDecided, CreatePairing, CreateThread, DecideApproval, DeviceRecord,
    DeviceRevoked, ListThreads, PairingCreated, PatchDevice, PatchThread, ProviderModels,
    StartTurn, SteerTurn, ThreadDetail, ThreadRecord, ThreadSummary, TurnItemRecord, TurnRecord,
    TurnStarted, UsageOverview, UserInputAnswered, Workbench,
};
use crate::protocol::{
    ApplyReview, EditLastTurn, ForkAtUserMessage, ForkedAt, Rerun, RestoreSnapshot, Restored,
    RetryTurn, RevertReview, ReviewApplied, ReviewReverted, SnapshotRecord, Undone, WorkspaceDiff,
    WorkspaceFile, WorkspaceListing, WorkspacePathQuery,
};
use crate::protocol::{
    AutomationRecord, AutomationRun, CreateAutomation, ListAutomationRuns, ListTasks,
    PreviewSchedule, SchedulePreview, TaskRecord,
};
use crate::protocol::{CreateFleetRun, FleetRunDetail, FleetRuns, ListFleetRuns};
use crate::protocol::{CreateMcpServer, McpServerRecord, McpToolRecord, SessionMetadata};
use crate::protocol::{ImportSkill, PatchSkill, SkillRecord};
use std::{future::Future, pin::Pin, sync::Arc};

pub use crate::error::ServiceError;

pub type Reply<'a, T> = Pin<Box<dyn Future<Output = Result<T, ServiceError>> + Send + 'a>>;

pub trait RuntimeService: Send + Sync {
    fn threads(&self, query: ListThreads) -> Reply<'_, Vec<ThreadSummary>>;
    fn thread(&self, id: String) -> Reply<'_, ThreadDetail>;
    /// Items `start..end` of a thread (clamped to what it holds), in order.
    fn thread_items(&self, id: String, start: usize, end: usize) -> Reply<'_, Vec<TurnItemRecord>>;
    fn create_thread(&self, request: CreateThread) -> Reply<'_, ThreadRecord>;
    fn patch_thread(&self, id: String, patch: PatchThread) -> Reply<'_, ThreadRecord>;
    fn fork_thread(&self, id: String) -> Reply<'_, ThreadRecord>;
    fn start_turn(&self, id: String, request: StartTurn) -> Reply<'_, TurnStarted>;
    fn steer_turn(&self, id: String, turn: String, request: SteerTurn) -> Reply<'_, TurnRecord>;
    fn interrupt_turn(&self, id: String, turn: String) -> Reply<'_, TurnRecord>;
    fn decide_approval(&self, id: String, decision: DecideApproval) -> Reply<'_, ApprovalDecided>;
    fn answer_user_input(
        &self,
        thread: String,
        input: String,
        answers: AnswerUserInput,
    ) -> Reply<'_, UserInputAnswered>;
    fn usage_overview(&self, days: u32) -> Reply<'_, UsageOverview>;
    fn providers(&self) -> Vec<ProviderModels>;
    /// Paired devices (phones), newest first; `current` marks the caller.
    fn devices(&self) -> Reply<'_, Vec<DeviceRecord>>;
    fn rename_device(&self, id: String, patch: PatchDevice) -> Reply<'_, DeviceRecord>;
    /// Revokes a device: its next request is 401, its streams end.
    fn revoke_device(&self, id: String) -> Reply<'_, DeviceRevoked>;
    /// Mints a one-time pairing link (409 when the server is not in
    /// `--mobile` mode).
    fn create_pairing(&self, request: CreatePairing) -> Reply<'_, PairingCreated>;
    /// One directory of the thread's own workspace.
    fn browse(&self, id: String, query: WorkspacePathQuery) -> Reply<'_, WorkspaceListing>;
    /// One text file of the thread's workspace (bounded; binaries not read).
    fn file(&self, id: String, query: WorkspacePathQuery) -> Reply<'_, WorkspaceFile>;
    /// The thread's workspace against HEAD (409 when it is not a git repository).
    fn diff(&self, id: String) -> Reply<'_, WorkspaceDiff>;
    fn thread_snapshots(&self, id: String) -> Reply<'_, Vec<SnapshotRecord>>;
    /// Takes the last turn back, files and conversation (409 on conflicts).
    fn undo(&self, id: String) -> Reply<'_, Undone>;
    fn retry(&self, id: String, request: RetryTurn) -> Reply<'_, Rerun>;
    fn edit_last_turn(&self, id: String, request: EditLastTurn) -> Reply<'_, Rerun>;
    fn fork_at_user_message(&self, id: String, request: ForkAtUserMessage) -> Reply<'_, ForkedAt>;
    fn restore_snapshot(&self, id: String, request: RestoreSnapshot) -> Reply<'_, Restored>;
    /// Starts a turn applying review findings (a `review_action` opens it).
    fn apply_review(&self, id: String, request: ApplyReview) -> Reply<'_, ReviewApplied>;
    /// Puts back what an apply turn changed (409 on conflicts).
    fn revert_review(&self, id: String, request: RevertReview) -> Reply<'_, ReviewReverted>;
    /// The task queue, newest first.
    fn tasks(&self, query: ListTasks) -> Reply<'_, Vec<TaskRecord>>;
    fn cancel_task(&self, id: String) -> Reply<'_, TaskRecord>;
    fn automations(&self) -> Reply<'_, Vec<AutomationRecord>>;
    fn automation_runs(
        &self,
        id: String,
        query: ListAutomationRuns,
    ) -> Reply<'_, Vec<AutomationRun>>;
    fn create_automation(&self, request: CreateAutomation) -> Reply<'_, AutomationRecord>;
    /// A schedule in words and its next runs, nothing saved.
    fn preview_schedule(&self, query: PreviewSchedule) -> Reply<'_, SchedulePreview>;
    fn run_automation(&self, id: String) -> Reply<'_, AutomationRun>;
    fn pause_automation(&self, id: String) -> Reply<'_, AutomationRecord>;
    fn resume_automation(&self, id: String) -> Reply<'_, AutomationRecord>;
    fn delete_automation(&self, id: String) -> Reply<'_, ()>;
    fn fleet_runs(&self, query: ListFleetRuns) -> Reply<'_, FleetRuns>;
    fn fleet_run(&self, id: String) -> Reply<'_, FleetRunDetail>;
    fn create_fleet_run(&self, request: CreateFleetRun) -> Reply<'_, FleetRunDetail>;
    /// Stop or clean up a run (`id` is the run's), interrupt or restart a
    /// worker (`id` is the worker's).
    fn fleet_command(&self, id: String, command: FleetCommand) -> Reply<'_, ()>;
    /// The user's skills and the default workspace's.
    fn skills(&self) -> Reply<'_, Vec<SkillRecord>>;
    fn patch_skill(&self, name: String, patch: PatchSkill) -> Reply<'_, SkillRecord>;
    fn import_skill(&self, request: ImportSkill) -> Reply<'_, SkillRecord>;
    /// The MCP servers of config.toml, as they stand (nothing started).
    fn mcp_servers(&self) -> Reply<'_, Vec<McpServerRecord>>;
    /// One server's tools (started if it is not running).
    fn mcp_tools(&self, name: String) -> Reply<'_, Vec<McpToolRecord>>;
    fn add_mcp_server(&self, request: CreateMcpServer) -> Reply<'_, McpServerRecord>;
    fn mcp_command(&self, name: String, command: McpCommand) -> Reply<'_, ()>;
    /// Saved sessions whose title, name or id holds `search` (all when empty).
    fn sessions(&self, search: String) -> Reply<'_, Vec<SessionMetadata>>;
    fn resume_session(&self, id: String) -> Reply<'_, ThreadRecord>;
    fn delete_session(&self, id: String) -> Reply<'_, ()>;
    /// Facts the workbench shows about this server.
    fn workbench(&self) -> Workbench;
}

/// The service, if the viewer is signed in: the server provides it to
/// signed-in requests only, so its absence means "sign in first" (401).
pub fn service() -> Result<Arc<dyn RuntimeService>, ServiceError> {
    leptos::prelude::use_context::<Arc<dyn RuntimeService>>().ok_or_else(ServiceError::unauthorized)
}
