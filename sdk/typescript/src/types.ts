// Names for the wire types of the /v1 API. Every type here is generated
// (src/schema.ts, from openapi/codewhale-v1.json): this file only names them.

import type { components, operations } from "./schema.js";

export type { components, operations, paths } from "./schema.js";

type Schemas = components["schemas"];

export type Mode = Schemas["Mode"];
export type ItemStatus = Schemas["ItemStatus"];
export type TurnStatus = Schemas["TurnStatus"];
export type ItemKind = Schemas["ItemKind"];
export type ApprovalDecision = Schemas["ApprovalDecision"];

export type ThreadRecord = Schemas["ThreadRecord"];
/** Alias of {@link ThreadRecord}. */
export type Thread = ThreadRecord;
export type TurnRecord = Schemas["TurnRecord"];
export type TurnItemRecord = Schemas["TurnItemRecord"];
export type Usage = Schemas["Usage"];
export type ThreadDetail = Schemas["ThreadDetail"];
export type ThreadSummary = Schemas["ThreadSummary"];
export type TurnStarted = Schemas["TurnStarted"];

export type CreateThread = Schemas["CreateThread"];
export type PatchThread = Schemas["PatchThread"];
export type StartTurn = Schemas["StartTurn"];
export type SteerTurn = Schemas["SteerTurn"];
export type CompactThread = Schemas["CompactThread"];
/** Query of `GET /v1/threads` and `/v1/threads/summary`. */
export type ListThreads = NonNullable<operations["listThreads"]["parameters"]["query"]>;
/** Query of `GET /v1/usage`. */
export type UsageQuery = NonNullable<operations["getUsage"]["parameters"]["query"]>;

export type DecideApproval = Schemas["DecideApproval"];
export type ApprovalDecided = Schemas["ApprovalDecided"];
export type Question = Schemas["Question"];
export type QuestionOption = Schemas["QuestionOption"];
export type UserInputRequest = Schemas["UserInputRequest"];
export type Answer = Schemas["Answer"];
export type AnswerUserInput = Schemas["AnswerUserInput"];
export type UserInputAnswered = Schemas["UserInputAnswered"];
export type DynamicToolSpec = Schemas["DynamicToolSpec"];
export type DynamicToolCall = Schemas["DynamicToolCall"];
export type DynamicToolResult = Schemas["DynamicToolResult"];
export type ToolContent = Schemas["ToolContent"];
export type ToolResultAccepted = Schemas["ToolResultAccepted"];

export type UsageReport = Schemas["UsageReport"];
export type UsageTotals = Schemas["UsageTotals"];
export type UsageBucket = Schemas["UsageBucket"];

export type Health = Schemas["Health"];
export type RuntimeInfo = Schemas["RuntimeInfo"];
export type Capabilities = Schemas["Capabilities"];

export type TaskRecord = Schemas["TaskRecord"];

export type CreateFleetRun = Schemas["CreateFleetRun"];
export type FleetWorkerSpec = Schemas["FleetWorkerSpec"];
export type FleetRun = Schemas["FleetRun"];
export type FleetRunDetail = Schemas["FleetRunDetail"];
export type FleetRuns = Schemas["FleetRuns"];
export type FleetWorker = Schemas["FleetWorker"];
export type FleetWorkers = Schemas["FleetWorkers"];
export type FleetCounts = Schemas["FleetCounts"];
export type DiffStat = Schemas["DiffStat"];
/** Query of `GET /v1/fleet/runs`. */
export type ListFleetRuns = NonNullable<operations["listFleetRuns"]["parameters"]["query"]>;
/** One event of a fleet run's stream (`payload` is the worker or the run after the change). */
export type FleetEvent = Schemas["FleetEventEnvelope"];
export type AgentRun = Schemas["AgentRun"];
export type AgentRuns = Schemas["AgentRuns"];
export type AgentRunStatus = Schemas["AgentRunStatus"];
export type AgentRunSpec = Schemas["AgentRunSpec"];
export type AgentArtifact = Schemas["AgentArtifact"];
/** `agent.spawned` and `agent.completed` on the parent thread's stream. */
export type AgentRunPayload = Schemas["AgentRunPayload"];
/** Query of `GET /v1/agent-runs`. */
export type ListAgentRuns = NonNullable<operations["listAgentRuns"]["parameters"]["query"]>;
export type SkillRecord = Schemas["SkillRecord"];
export type SkillSource = Schemas["SkillSource"];
export type CreateSkill = Schemas["CreateSkill"];
export type ImportSkill = Schemas["ImportSkill"];
export type PatchSkill = Schemas["PatchSkill"];
/** Query of `GET /v1/skills`. */
export type ListSkills = NonNullable<operations["listSkills"]["parameters"]["query"]>;
export type McpServerRecord = Schemas["McpServerRecord"];
export type McpServers = Schemas["McpServers"];
export type McpServerStatus = Schemas["McpServerStatus"];
export type McpTransport = Schemas["McpTransport"];
export type CreateMcpServer = Schemas["CreateMcpServer"];
export type PatchMcpServer = Schemas["PatchMcpServer"];
export type McpToolRecord = Schemas["McpToolRecord"];
export type McpTools = Schemas["McpTools"];
export type SessionMetadata = Schemas["SessionMetadata"];
export type SessionDetail = Schemas["SessionDetail"];
export type SessionMessage = Schemas["SessionMessage"];
export type Sessions = Schemas["Sessions"];
export type PersistSession = Schemas["PersistSession"];
export type ListSessions = NonNullable<operations["listSessions"]["parameters"]["query"]>;
export type ListMcpTools = NonNullable<operations["listMcpTools"]["parameters"]["query"]>;
export type TaskStatus = Schemas["TaskStatus"];
export type CreateTask = Schemas["CreateTask"];
export type TasksCleared = Schemas["TasksCleared"];
export type ListTasks = NonNullable<operations["listTasks"]["parameters"]["query"]>;

export type AutomationRecord = Schemas["AutomationRecord"];
export type AutomationState = Schemas["AutomationState"];
export type AutomationRun = Schemas["AutomationRun"];
export type RunTrigger = Schemas["RunTrigger"];
export type CreateAutomation = Schemas["CreateAutomation"];
export type PatchAutomation = Schemas["PatchAutomation"];
export type SchedulePreview = Schemas["SchedulePreview"];
export type PreviewSchedule = NonNullable<operations["previewSchedule"]["parameters"]["query"]>;
export type ListAutomationRuns = NonNullable<operations["listAutomationRuns"]["parameters"]["query"]>;

export type DeviceRecord = Schemas["DeviceRecord"];
export type PatchDevice = Schemas["PatchDevice"];
export type CreatePairing = Schemas["CreatePairing"];
export type PairingCreated = Schemas["PairingCreated"];
export type DeviceRevoked = Schemas["DeviceRevoked"];

export type WorkspaceListing = Schemas["WorkspaceListing"];
export type WorkspaceEntry = Schemas["WorkspaceEntry"];
export type EntryKind = Schemas["EntryKind"];
export type WorkspaceFile = Schemas["WorkspaceFile"];
export type WorkspaceStatus = Schemas["WorkspaceStatus"];
export type StatusCounts = Schemas["StatusCounts"];
export type WorkspaceDiff = Schemas["WorkspaceDiff"];
export type DiffFile = Schemas["DiffFile"];
export type DiffFileStatus = Schemas["DiffFileStatus"];
export type DiffHunk = Schemas["DiffHunk"];
export type DiffLine = Schemas["DiffLine"];
export type DiffLineKind = Schemas["DiffLineKind"];
export type DiffLimits = Schemas["DiffLimits"];

export type ErrorBody = Schemas["ErrorBody"];
export type ErrorEnvelope = Schemas["ErrorEnvelope"];

// ---- the event stream ----------------------------------------------------

/** The envelope every event shares (schema version 1). */
export type EventEnvelope = Schemas["EventEnvelope"];
/**
 * One event of `/v1/threads/{id}/events`: a union discriminated by
 * `event`, so that `if (e.event === "item.delta")` types `e.payload`.
 */
export type RuntimeEvent = Schemas["StreamEvent"];
/** Every event name the document lists. */
export type EventName = RuntimeEvent["event"];
/** The event named `Name`. */
export type EventOf<Name extends EventName> = Extract<RuntimeEvent, { event: Name }>;
/** Each event name and its payload. */
export type EventPayloads = { [Name in EventName]: EventOf<Name>["payload"] };

export type ThreadStartedPayload = Schemas["ThreadStartedPayload"];
export type ThreadUpdatedPayload = Schemas["ThreadUpdatedPayload"];
export type ThreadForkedPayload = Schemas["ThreadForkedPayload"];
export type TurnPayload = Schemas["TurnPayload"];
export type TurnSteeredPayload = Schemas["TurnSteeredPayload"];
export type TurnInterruptRequestedPayload = Schemas["TurnInterruptRequestedPayload"];
export type ItemPayload = Schemas["ItemPayload"];
export type ItemDeltaPayload = Schemas["ItemDeltaPayload"];
export type ApprovalRequiredPayload = Schemas["ApprovalRequiredPayload"];
export type ApprovalDecidedPayload = Schemas["ApprovalDecidedPayload"];
export type ApprovalTimeoutPayload = Schemas["ApprovalTimeoutPayload"];
export type UserInputRequiredPayload = Schemas["UserInputRequiredPayload"];
export type UserInputAnsweredPayload = Schemas["UserInputAnsweredPayload"];
export type UserInputCanceledPayload = Schemas["UserInputCanceledPayload"];
export type ToolCallRequestedPayload = Schemas["ToolCallRequestedPayload"];
export type ToolCallSettledPayload = Schemas["ToolCallSettledPayload"];
