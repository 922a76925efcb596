// Wire types of the /v1 API, hand-written from protocol/src until the
// generated OpenAPI types replace them.

export type Mode = "agent" | "plan" | "yolo";
export type ItemStatus = "in_progress" | "completed" | "failed" | "interrupted";
export type TurnStatus = "queued" | "in_progress" | "completed" | "failed" | "interrupted" | "canceled";
export type ItemKind =
  | "user_message"
  | "agent_message"
  | "agent_reasoning"
  | "tool_call"
  | "file_change"
  | "command_execution"
  | "context_compaction"
  | "status"
  | "error";
export type ApprovalDecision = "allow" | "deny";

export interface DynamicToolSpec {
  namespace?: string | null;
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
}

export interface ThreadRecord {
  id: string;
  created_at: string;
  updated_at: string;
  model: string | null;
  model_provider: string | null;
  workspace: string | null;
  mode: Mode;
  allow_shell: boolean;
  trust_mode: boolean;
  auto_approve: boolean;
  title: string | null;
  system_prompt: string | null;
  task_id: string | null;
  latest_turn_id: string | null;
  latest_response_bookmark: string | null;
  archived: boolean;
  dynamic_tools: DynamicToolSpec[];
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
}

export interface TurnRecord {
  id: string;
  thread_id: string;
  status: TurnStatus;
  input_summary: string;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  usage: Usage;
  effective_provider: string | null;
  effective_model: string | null;
  effective_billing_surface: string | null;
  error: string | null;
  steer_count: number;
}

export interface TurnItemRecord {
  id: string;
  turn_id: string;
  kind: ItemKind;
  status: ItemStatus;
  summary: string;
  detail: string | null;
  metadata: unknown;
  started_at: string | null;
  ended_at: string | null;
}

export interface QuestionOption {
  label: string;
  description?: string;
}
export interface Question {
  id: string;
  header?: string;
  question: string;
  options?: QuestionOption[];
  allow_free_text?: boolean;
  multi_select?: boolean;
}
export interface UserInputRequest {
  questions: Question[];
}

export interface ApprovalRequiredPayload {
  id: string;
  approval_id: string;
  turn_id: string;
  tool_name: string;
  description: string;
  intent_summary: string;
}
export interface UserInputRequiredPayload {
  id: string;
  input_id: string;
  thread_id: string;
  turn_id: string;
  request: UserInputRequest;
}
export interface ToolCallRequestedPayload {
  id: string;
  thread_id: string;
  turn_id: string;
  call_id: string;
  namespace?: string | null;
  tool: string;
  arguments: unknown;
}

export interface ThreadDetail {
  thread: ThreadRecord;
  turns: TurnRecord[];
  items: TurnItemRecord[];
  latest_seq: number;
  pending_approvals: ApprovalRequiredPayload[];
  pending_user_inputs: UserInputRequiredPayload[];
  pending_dynamic_tool_calls: ToolCallRequestedPayload[];
}

export interface ThreadSummary {
  id: string;
  title: string | null;
  preview: string | null;
  model: string | null;
  mode: string;
  workspace: string | null;
  branch: string | null;
  head: string | null;
  dirty: boolean | null;
  archived: boolean;
  updated_at: string;
  latest_turn_id: string | null;
  latest_turn_status: TurnStatus | null;
}

export interface TurnStarted {
  thread: ThreadRecord;
  turn: TurnRecord;
}

export interface CreateThread {
  model?: string | null;
  model_provider?: string | null;
  workspace?: string | null;
  mode?: string | null;
  allow_shell?: boolean | null;
  trust_mode?: boolean | null;
  auto_approve?: boolean | null;
  system_prompt?: string | null;
  title?: string | null;
  dynamic_tools?: DynamicToolSpec[] | null;
}

export interface PatchThread {
  archived?: boolean | null;
  allow_shell?: boolean | null;
  trust_mode?: boolean | null;
  auto_approve?: boolean | null;
  model?: string | null;
  mode?: string | null;
  title?: string | null;
  system_prompt?: string | null;
  workspace?: string | null;
}

export interface StartTurn {
  prompt: string;
  input_summary?: string | null;
  model?: string | null;
  model_provider?: string | null;
  mode?: string | null;
  allow_shell?: boolean | null;
  trust_mode?: boolean | null;
  auto_approve?: boolean | null;
  dynamic_tools?: DynamicToolSpec[] | null;
}

export interface SteerTurn {
  prompt: string;
}
export interface CompactThread {
  reason?: string | null;
}

export interface ListThreads {
  limit?: number | null;
  search?: string | null;
  include_archived?: boolean;
  archived_only?: boolean;
}

export interface UsageQuery {
  since?: string | null;
  until?: string | null;
  group_by?: string | null;
}

export interface DecideApproval {
  decision: ApprovalDecision;
  remember?: boolean;
}
export interface ApprovalDecided {
  ok: boolean;
  approval_id: string;
  decision: ApprovalDecision;
  delivered: boolean;
}

export interface Answer {
  id: string;
  label?: string;
  value: string;
}
export interface AnswerUserInput {
  answers: Answer[];
}
export interface UserInputAnswered {
  ok: boolean;
  input_id: string;
  delivered: boolean;
}

export type ToolContent = { type: "input_text"; text: string } | { type: "input_image"; image_url: string };
export interface DynamicToolResult {
  success: boolean;
  content?: ToolContent[];
}
export interface ToolResultAccepted {
  accepted: boolean;
  call_id: string;
}

export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  turns: number;
}
export interface UsageBucket extends UsageTotals {
  key: string;
}
export interface UsageReport {
  since: string | null;
  until: string | null;
  group_by: string;
  totals: UsageTotals;
  buckets: UsageBucket[];
}

export interface Health {
  status: string;
  service: string;
  mode: string;
}

export interface Capabilities {
  web_client: boolean;
  web_bootstrap: boolean;
  threads: boolean;
  turns: boolean;
  turn_steer: boolean;
  turn_interrupt: boolean;
  event_replay: boolean;
  approvals: boolean;
  user_input: boolean;
  external_tools: boolean;
  usage: boolean;
  mobile: boolean;
  environments: boolean;
  worker_runtime: boolean;
}

export interface RuntimeInfo {
  service: string;
  runtime_api_version: string;
  codewhale_version: string;
  version: string;
  bind_host: string;
  port: number;
  auth_required: boolean;
  transports: string[];
  capabilities: Capabilities;
}

export interface DeviceRecord {
  id: string;
  name: string;
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  last_address: string | null;
  current: boolean;
}
export interface PatchDevice {
  name: string;
}
export interface CreatePairing {
  ttl_seconds?: number | null;
  label?: string | null;
}
export interface PairingCreated {
  url: string;
  expires_at: string;
  label: string | null;
  qr_svg: string;
  tls_fingerprint: string | null;
}
export interface DeviceRevoked {
  id: string;
  revoked: boolean;
}

export interface ErrorBody {
  message: string;
  status: number;
}
export interface ErrorEnvelope {
  error: ErrorBody;
}

/** One event of `/v1/threads/{id}/events` (schema version 1). */
export interface EventEnvelope<Name extends string = string, Payload = unknown> {
  schema_version: number;
  seq: number;
  /** The previous event delivered on this stream (or the replay cursor). */
  previous_seq: number;
  event: Name;
  kind: Name;
  thread_id: string;
  turn_id: string | null;
  item_id: string | null;
  timestamp: string;
  created_at: string;
  payload: Payload;
}

export interface ThreadStartedPayload {
  thread: ThreadRecord;
}
export interface ThreadUpdatedPayload {
  thread: ThreadRecord;
  changed: string[];
}
export interface ThreadForkedPayload {
  thread: ThreadRecord;
  source_thread_id: string;
}
export interface TurnPayload {
  turn: TurnRecord;
  recovered?: boolean;
}
export interface TurnSteeredPayload {
  turn_id: string;
  prompt: string;
  steer_count: number;
}
export interface TurnInterruptRequestedPayload {
  turn_id: string;
}
export interface ItemPayload {
  item: TurnItemRecord;
}
export interface ItemDeltaPayload {
  delta: string;
  kind: ItemKind;
}
export interface ApprovalDecidedPayload {
  approval_id: string;
  decision: ApprovalDecision;
  remember?: boolean;
  auto?: boolean;
  timeout?: boolean;
  canceled?: boolean;
  terminal?: boolean;
  recovered?: boolean;
}
export interface ApprovalTimeoutPayload {
  approval_id: string;
  timeout_secs: number;
}
export interface UserInputAnsweredPayload {
  id: string;
  input_id: string;
}
export interface UserInputCanceledPayload {
  id: string;
  input_id: string;
  reason: string;
  timeout_secs?: number;
  terminal?: boolean;
  recovered?: boolean;
}
export interface ToolCallSettledPayload {
  thread_id: string;
  turn_id: string;
  call_id: string;
  namespace: string | null;
  tool: string;
  status: string;
  success?: boolean;
  result_accepted?: boolean;
  timeout_secs?: number;
  reason?: string;
  terminal?: boolean;
  recovered?: boolean;
}

/** Each event name and its payload. */
export interface EventPayloads {
  "thread.started": ThreadStartedPayload;
  "thread.updated": ThreadUpdatedPayload;
  "thread.forked": ThreadForkedPayload;
  "turn.started": TurnPayload;
  "turn.steered": TurnSteeredPayload;
  "turn.interrupt_requested": TurnInterruptRequestedPayload;
  "turn.completed": TurnPayload;
  "item.started": ItemPayload;
  "item.delta": ItemDeltaPayload;
  "item.completed": ItemPayload;
  "item.failed": ItemPayload;
  "item.interrupted": ItemPayload;
  "approval.required": ApprovalRequiredPayload;
  "approval.decided": ApprovalDecidedPayload;
  "approval.timeout": ApprovalTimeoutPayload;
  "user_input.required": UserInputRequiredPayload;
  "user_input.answered": UserInputAnsweredPayload;
  "user_input.canceled": UserInputCanceledPayload;
  "tool_call.requested": ToolCallRequestedPayload;
  "tool_call.resolved": ToolCallSettledPayload;
  "tool_call.timeout": ToolCallSettledPayload;
  "tool_call.canceled": ToolCallSettledPayload;
}

export type EventName = keyof EventPayloads;

/**
 * A runtime event: the envelope, discriminated by `event`, so that
 * `if (e.event === "item.delta")` types `e.payload`.
 */
export type RuntimeEvent = { [Name in EventName]: EventEnvelope<Name, EventPayloads[Name]> }[EventName];
