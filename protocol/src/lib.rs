//! Wire types shared by the browser, the server and external `/v1` clients.

mod agent_runs;
mod automations;
mod catalog;
mod devices;
mod diagnostics;
mod error;
mod event_payloads;
mod events;
mod fleet;
mod info;
mod interaction;
mod mcp;
mod records;
mod requests;
mod review;
mod sessions;
mod settlements;
mod skills;
mod snapshots;
mod tasks;
mod usage;
mod views;
mod workbench;
mod workspace;

pub use agent_runs::{
    AgentArtifact, AgentFollowUp, AgentIsolation, AgentRun, AgentRunEvent, AgentRunPayload,
    AgentRunSpec, AgentRunStatus, AgentRuns, AgentTakeover, AgentVerification, ListAgentRuns,
    VerificationCommand, SUB_AGENT_ACTOR,
};
pub use automations::{
    AutomationRecord, AutomationRun, AutomationState, CreateAutomation, ListAutomationRuns,
    PatchAutomation, PreviewSchedule, RunTrigger, SchedulePreview,
};
pub use catalog::ProviderModels;
pub use devices::{CreatePairing, DeviceRecord, DeviceRevoked, PairingCreated, PatchDevice};
pub use diagnostics::{ConfigDiagnostics, ConfigKey, ConfigLayer, ConfigProblem};
pub use error::{clip_message, ErrorBody, ErrorEnvelope, ErrorKind};
pub use event_payloads::{
    ApprovalDecidedPayload, ApprovalRequiredPayload, ApprovalTimeoutPayload, EventPayload,
    ItemDeltaPayload, ItemPayload, ThreadForkedPayload, ThreadStartedPayload, ThreadUpdatedPayload,
    ToolCallRequestedPayload, ToolCallSettledPayload, TurnInterruptRequestedPayload, TurnPayload,
    TurnSteeredPayload, UserInputAnsweredPayload, UserInputCanceledPayload,
    UserInputRequiredPayload,
};
pub use events::{EventEnvelope, EventName, EVENT_SCHEMA_VERSION};
pub use fleet::{
    fleet_events, CreateFleetRun, DiffStat, DiffStatFile, FleetCounts, FleetEventEnvelope,
    FleetIsolation, FleetRun, FleetRunDetail, FleetRunStatus, FleetRuns, FleetWorker,
    FleetWorkerSpec, FleetWorkers, ListFleetRuns,
};
pub use info::{Capabilities, Health, RuntimeInfo, RUNTIME_API_VERSION, SERVICE_NAME};
pub use interaction::{
    Answer, AnswerUserInput, DynamicToolCall, DynamicToolResult, DynamicToolSpec, Question,
    QuestionOption, ToolContent, UserInputRequest,
};
pub use mcp::{
    CreateMcpServer, ListMcpTools, McpServerRecord, McpServerStatus, McpServers, McpToolRecord,
    McpTools, McpTransport, PatchMcpServer,
};
pub use records::{
    InstructionFile, InstructionScope, ItemKind, ItemStatus, Mode, ThreadRecord, TurnItemRecord,
    TurnRecord, TurnStatus, Usage,
};
pub use requests::{
    CompactThread, CreateThread, ListThreads, PatchThread, StartTurn, SteerTurn, UsageQuery,
};
pub use review::{
    ApplyReview, RevertReview, ReviewAction, ReviewApplied, ReviewFinding, ReviewPriority,
    ReviewReversal, ReviewReverted, MAX_FINDINGS_PER_APPLY,
};
pub use sessions::{
    ListSessions, PersistSession, SessionContent, SessionDetail, SessionMessage, SessionMetadata,
    Sessions,
};
pub use settlements::{
    ApprovalDecided, ApprovalDecision, DecideApproval, ToolResultAccepted, UserInputAnswered,
};
pub use skills::{CreateSkill, ImportSkill, ListSkills, PatchSkill, SkillRecord, SkillSource};
pub use snapshots::{
    EditLastTurn, FileChange, ForkAtUserMessage, ForkedAt, Rerun, RestoreReason, RestoreSnapshot,
    Restored, RestoredFile, RetryTurn, SnapshotCreatedPayload, SnapshotKind, SnapshotRecord,
    Undone, WorkspaceRestoredPayload,
};
pub use tasks::{CreateTask, ListTasks, TaskRecord, TaskStatus, TasksCleared};
pub use usage::{
    ThreadUsage, UsageBucket, UsageOverview, UsageReport, UsageTotals, MAX_USAGE_DAYS,
};
pub use views::{ThreadDetail, ThreadSummary, TurnStarted};
pub use workbench::{Ping, Workbench};
pub use workspace::{
    DiffFile, DiffFileStatus, DiffHunk, DiffLimits, DiffLine, DiffLineKind, EntryKind,
    StatusCounts, WorkspaceDiff, WorkspaceEntry, WorkspaceFile, WorkspaceListing,
    WorkspacePathQuery, WorkspaceQuery, WorkspaceStatus, WorkspaceStatusQuery,
};
