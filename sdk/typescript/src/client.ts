import { CapabilityError, errorFromResponse, RuntimeApiError, type CapabilityName } from "./errors.js";
import { streamEvents, type EventsOptions, type ThreadStreamItem } from "./events.js";
import { fleetEvents, type FleetEventsOptions } from "./fleet.js";
import { registerTool, type RegisterToolOptions, type ToolDefinition, type ToolRegistration } from "./tools.js";
import type {
  Answer,
  AnswerUserInput,
  ApprovalDecided,
  ApprovalDecision,
  AutomationRecord,
  CreateFleetRun,
  FleetEvent,
  FleetRunDetail,
  FleetRuns,
  AgentRun,
  AgentRuns,
  ListAgentRuns,
  CreateMcpServer,
  CreateSkill,
  ImportSkill,
  ListMcpTools,
  ListSessions,
  McpServerRecord,
  McpServers,
  McpTools,
  PatchMcpServer,
  PersistSession,
  SessionDetail,
  SessionMetadata,
  Sessions,
  ListSkills,
  PatchSkill,
  SkillRecord,
  FleetWorker,
  FleetWorkers,
  ListFleetRuns,
  AutomationRun,
  CompactThread,
  CreateAutomation,
  CreatePairing,
  CreateTask,
  CreateThread,
  DecideApproval,
  DeviceRecord,
  DeviceRevoked,
  DynamicToolResult,
  Health,
  ListAutomationRuns,
  ListTasks,
  ListThreads,
  PairingCreated,
  PatchAutomation,
  PatchThread,
  PreviewSchedule,
  RuntimeInfo,
  SchedulePreview,
  StartTurn,
  TaskRecord,
  TasksCleared,
  ThreadDetail,
  ThreadRecord,
  ThreadSummary,
  ToolResultAccepted,
  TurnRecord,
  TurnStarted,
  UsageQuery,
  UsageReport,
  UserInputAnswered,
  WorkspaceDiff,
  WorkspaceFile,
  WorkspaceListing,
  WorkspaceStatus,
} from "./types.js";

export interface RuntimeClientOptions {
  /**
   * Where the server listens, e.g. `http://127.0.0.1:7878` (what
   * `codewhale app-server --http` prints). A trailing `/` or `/v1` is
   * ignored.
   */
  baseUrl: string;
  /** The runtime token (`--auth-token`), sent as `Authorization: Bearer`. */
  token?: string;
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: typeof globalThis.fetch;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Check `/v1/runtime/info` (once, cached) before calls that need a
   * capability and throw {@link CapabilityError} when it is not advertised.
   * Default true.
   */
  checkCapabilities?: boolean;
}

/** Per-call options. */
export interface RequestOptions {
  signal?: AbortSignal;
}

type Query = Record<string, string | number | boolean | null | undefined>;

interface CallInit extends RequestOptions {
  body?: unknown;
  query?: Query | undefined;
  /** Sends the body even when it is undefined (as `{}`). */
  emptyBody?: boolean;
}

const seg = encodeURIComponent;

/** Creates a client of one codewhale runtime. */
export function createRuntimeClient(options: RuntimeClientOptions): RuntimeClient {
  return new RuntimeClient(options);
}

/**
 * A client of the codewhale runtime API. Every method sends one request
 * (plus, the first time a capability is needed, `GET /v1/runtime/info`)
 * and resolves with the server's JSON, or rejects with a
 * {@link RuntimeApiError} (any non-2xx, or no answer) or a
 * {@link CapabilityError} (the server does not offer it).
 */
export class RuntimeClient {
  readonly baseUrl: string;
  readonly #token: string | undefined;
  readonly #fetch: typeof globalThis.fetch;
  readonly #headers: Record<string, string>;
  readonly #checkCapabilities: boolean;
  #info: Promise<RuntimeInfo> | undefined;

  constructor(options: RuntimeClientOptions) {
    if (!options || typeof options.baseUrl !== "string" || options.baseUrl === "") {
      throw new TypeError("createRuntimeClient: baseUrl is required (e.g. http://127.0.0.1:7878)");
    }
    this.baseUrl = checkBaseUrl(options.baseUrl);
    if (options.token !== undefined) checkToken(options.token);
    this.#token = options.token;
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError("createRuntimeClient: no fetch available; pass options.fetch");
    // Called as a plain function: a browser's fetch refuses any other `this`.
    this.#fetch = (input, init) => f(input, init);
    this.#headers = { ...(options.headers ?? {}) };
    this.#checkCapabilities = options.checkCapabilities ?? true;
  }

  // ---- plumbing -------------------------------------------------------

  /** The absolute URL of `path` (which starts with `/`). */
  url(path: string, query?: Query): string {
    let url = this.baseUrl + path;
    if (query) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) {
        if (value !== undefined && value !== null) params.set(key, String(value));
      }
      const text = params.toString();
      if (text) url += "?" + text;
    }
    return url;
  }

  /**
   * `text` with this client's token (and any other secret header value it
   * sends) replaced by `[redacted]`: for messages built from text this
   * client does not control (a fetch error, a tool handler's error).
   */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets()) {
      // A secret of a few characters cannot be told from ordinary text
      // (and redacting it would mangle every message); real tokens are long.
      if (secret.length >= MIN_REDACTED) out = out.split(secret).join("[redacted]");
    }
    return out;
  }

  #secrets(): string[] {
    const secrets: string[] = [];
    if (this.#token) secrets.push(this.#token, encodeURIComponent(this.#token));
    for (const [name, value] of Object.entries(this.#headers)) {
      if (SECRET_HEADER.test(name) && typeof value === "string" && value.length >= 4) secrets.push(value);
    }
    // Longest first, so that a secret containing another is removed whole.
    return secrets.sort((a, b) => b.length - a.length);
  }

  /**
   * Sends one request as-is and returns the response, whatever its status
   * (what {@link request} and the event stream build on). A request that
   * cannot even be built (an invalid header value, a bad URL) throws a
   * {@link RuntimeApiError} with kind "invalid_request", which is not
   * retryable; a request that got no answer throws one with status 0
   * (kind "unreachable", retryable). Neither copies the underlying error's
   * text without removing the token first.
   * @internal
   */
  async send(
    method: string,
    path: string,
    init: { query?: Query | undefined; headers?: Record<string, string>; body?: string; signal?: AbortSignal | undefined } = {},
  ): Promise<Response> {
    const url = this.url(path, init.query);
    const headers = this.headers(init.headers);
    const problem = requestProblem(url, headers);
    if (problem) {
      throw new RuntimeApiError({ status: 0, kind: "invalid_request", message: `${method} ${path}: ${problem}`, method, path });
    }
    try {
      return await this.#fetch(url, {
        method,
        headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
      });
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason ?? error;
      throw new RuntimeApiError({
        status: 0,
        message: `${method} ${path}: the runtime could not be reached (${this.#describe(error)})`,
        method,
        path,
        cause: this.#sanitize(error),
      });
    }
  }

  /** A short account of a fetch failure: its error code, never its text. */
  #describe(error: unknown): string {
    const codes: string[] = [];
    let current: unknown = error;
    for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
      const code = (current as { code?: unknown }).code;
      if (typeof code === "string" && /^[A-Z0-9_]{2,40}$/.test(code)) codes.push(code);
      current = (current as { cause?: unknown }).cause;
    }
    if (codes.length > 0) return codes[0]!;
    const name = error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name) ? error.name : "error";
    return `${name}, no error code`;
  }

  /**
   * A copy of `error` (and its causes) that is safe to keep: the same name
   * and code, the message with the token removed, no other properties.
   */
  #sanitize(error: unknown, depth = 0): unknown {
    if (depth > 4) return undefined;
    if (!(error instanceof Error)) {
      return error === undefined ? undefined : new Error(this.redact(String(error)));
    }
    const cause = (error as { cause?: unknown }).cause;
    const safeCause = cause === undefined ? undefined : this.#sanitize(cause, depth + 1);
    const copy = new Error(this.redact(error.message), safeCause === undefined ? undefined : { cause: safeCause });
    copy.name = this.redact(error.name);
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string") (copy as { code?: string }).code = this.redact(code);
    copy.stack = `${copy.name}: ${copy.message}`;
    return copy;
  }

  /** `error` with the token removed from its text (for a stream's read errors). @internal */
  sanitizeError(error: unknown): unknown {
    return this.#sanitize(error);
  }

  /** The headers every request carries (auth included). */
  headers(extra?: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { ...this.#headers, ...(extra ?? {}) };
    if (this.#token) headers["Authorization"] = `Bearer ${this.#token}`;
    return headers;
  }

  /** The fetch this client uses. */
  get fetch(): typeof globalThis.fetch {
    return this.#fetch;
  }

  /**
   * Sends one request and returns the parsed JSON body. Non-2xx →
   * {@link RuntimeApiError}; a network failure → {@link RuntimeApiError}
   * with status 0 and kind "unreachable"; an abort through `signal`
   * rejects with the signal's reason.
   */
  async request<T>(method: string, path: string, init: CallInit = {}): Promise<T> {
    const hasBody = init.body !== undefined || init.emptyBody === true;
    const headers = {
      Accept: "application/json",
      ...(hasBody ? { "Content-Type": "application/json" } : {}),
    };
    const response = await this.send(method, path, {
      query: init.query,
      headers,
      ...(hasBody ? { body: JSON.stringify(init.body ?? {}) } : {}),
      signal: init.signal,
    });
    if (!response.ok) throw await errorFromResponse(response, method, path);
    const text = await response.text();
    if (text === "") return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new RuntimeApiError({
        status: response.status,
        kind: "other",
        message: `${method} ${path}: the answer is not JSON`,
        method,
        path,
        body: text,
        cause: error,
      });
    }
  }

  /**
   * Throws {@link CapabilityError} unless `/v1/runtime/info` advertises
   * `capability` (read once and cached; see {@link runtimeInfo}).
   */
  async requireCapability(capability: CapabilityName, operation: string, options?: RequestOptions): Promise<void> {
    if (!this.#checkCapabilities) return;
    const info = await this.runtimeInfo(options);
    const flags = (info?.capabilities ?? {}) as unknown as Record<string, unknown>;
    if (flags[capability] !== true) throw new CapabilityError(capability, operation);
  }

  // ---- runtime --------------------------------------------------------

  /**
   * `GET /v1/runtime/info`: version, auth, and the capability flags. The
   * first answer is cached for this client; `{ refresh: true }` reads it
   * again (the cache then holds the new answer).
   */
  runtimeInfo(options: RequestOptions & { refresh?: boolean } = {}): Promise<RuntimeInfo> {
    if (!this.#info || options.refresh) {
      // Fetched without any caller's signal (it is shared): each caller
      // waits for it with its own signal, and one caller's abort fails only
      // that caller. A failed read is dropped from the cache.
      const pending = this.request<RuntimeInfo>("GET", "/v1/runtime/info");
      this.#info = pending;
      pending.catch(() => {
        if (this.#info === pending) this.#info = undefined;
      });
    }
    return raceSignal(this.#info, options.signal);
  }

  /**
   * `GET /v1/openapi.json`: the OpenAPI 3.1 document of the running
   * server (no token needed); this package's types come from the copy
   * committed with the server (`openapi/codewhale-v1.json`).
   */
  openapi(options: RequestOptions = {}): Promise<Record<string, unknown>> {
    return this.request("GET", "/v1/openapi.json", options);
  }

  /** `GET /health` (no token needed). */
  health(options: RequestOptions = {}): Promise<Health> {
    return this.request("GET", "/health", options);
  }

  // ---- threads --------------------------------------------------------

  /** `GET /v1/threads`: newest first (limit 1-500, default 50). */
  async listThreads(query: ListThreads = {}, options: RequestOptions = {}): Promise<ThreadRecord[]> {
    await this.requireCapability("threads", "listThreads", options);
    return this.request("GET", "/v1/threads", { ...options, query: query as Query });
  }

  /** `GET /v1/threads/summary`: rows for pickers, with git facts. */
  async threadSummaries(query: ListThreads = {}, options: RequestOptions = {}): Promise<ThreadSummary[]> {
    await this.requireCapability("threads", "threadSummaries", options);
    return this.request("GET", "/v1/threads/summary", { ...options, query: query as Query });
  }

  /** `POST /v1/threads`. */
  async createThread(body: CreateThread = {}, options: RequestOptions = {}): Promise<ThreadRecord> {
    await this.requireCapability("threads", "createThread", options);
    return this.request("POST", "/v1/threads", { ...options, body });
  }

  /**
   * `GET /v1/threads/{id}`: the snapshot (thread, turns, items, pending
   * requests) and `latest_seq`, the cursor to stream from.
   */
  async getThread(threadId: string, options: RequestOptions = {}): Promise<ThreadDetail> {
    await this.requireCapability("threads", "getThread", options);
    return this.request("GET", `/v1/threads/${seg(threadId)}`, options);
  }

  /** `PATCH /v1/threads/{id}`: title, archived, mode, model, workspace… */
  async updateThread(threadId: string, patch: PatchThread, options: RequestOptions = {}): Promise<ThreadRecord> {
    await this.requireCapability("threads", "updateThread", options);
    return this.request("PATCH", `/v1/threads/${seg(threadId)}`, { ...options, body: patch });
  }

  /** `POST /v1/threads/{id}/fork`: a new thread with this one's history. */
  async forkThread(threadId: string, options: RequestOptions = {}): Promise<ThreadRecord> {
    await this.requireCapability("threads", "forkThread", options);
    return this.request("POST", `/v1/threads/${seg(threadId)}/fork`, options);
  }

  /** `POST /v1/threads/{id}/resume`: unarchives the thread. */
  async resumeThread(threadId: string, options: RequestOptions = {}): Promise<ThreadRecord> {
    await this.requireCapability("threads", "resumeThread", options);
    return this.request("POST", `/v1/threads/${seg(threadId)}/resume`, options);
  }

  // ---- turns ----------------------------------------------------------

  /** `POST /v1/threads/{id}/turns`: a prompt, or the whole request. */
  async startTurn(threadId: string, turn: string | StartTurn, options: RequestOptions = {}): Promise<TurnStarted> {
    await this.requireCapability("turns", "startTurn", options);
    const body: StartTurn = typeof turn === "string" ? { prompt: turn } : turn;
    return this.request("POST", `/v1/threads/${seg(threadId)}/turns`, { ...options, body });
  }

  /** `POST /v1/threads/{id}/turns/{turn}/steer`: more input for a running turn. */
  async steerTurn(threadId: string, turnId: string, prompt: string, options: RequestOptions = {}): Promise<TurnRecord> {
    await this.requireCapability("turn_steer", "steerTurn", options);
    return this.request("POST", `/v1/threads/${seg(threadId)}/turns/${seg(turnId)}/steer`, {
      ...options,
      body: { prompt },
    });
  }

  /** `POST /v1/threads/{id}/turns/{turn}/interrupt`. */
  async interruptTurn(threadId: string, turnId: string, options: RequestOptions = {}): Promise<TurnRecord> {
    await this.requireCapability("turn_interrupt", "interruptTurn", options);
    return this.request("POST", `/v1/threads/${seg(threadId)}/turns/${seg(turnId)}/interrupt`, options);
  }

  /** `POST /v1/threads/{id}/compact`: runs as a turn; follow it on the stream. */
  async compactThread(threadId: string, body: CompactThread = {}, options: RequestOptions = {}): Promise<TurnStarted> {
    await this.requireCapability("turns", "compactThread", options);
    return this.request("POST", `/v1/threads/${seg(threadId)}/compact`, { ...options, body });
  }

  // ---- what turns wait on ---------------------------------------------

  /**
   * `POST /v1/approvals/{id}`: "allow" or "deny" (or the whole body, with
   * `remember: true` to approve the thread's later requests too). A
   * request already settled (decided, timed out, turn over) is a 404.
   */
  async decideApproval(
    approvalId: string,
    decision: ApprovalDecision | DecideApproval,
    options: RequestOptions = {},
  ): Promise<ApprovalDecided> {
    await this.requireCapability("approvals", "decideApproval", options);
    const body: DecideApproval = typeof decision === "string" ? { decision } : decision;
    return this.request("POST", `/v1/approvals/${seg(approvalId)}`, { ...options, body });
  }

  /** `POST /v1/user-input/{thread}/{input}`: one answer per question. */
  async answerUserInput(
    threadId: string,
    inputId: string,
    answers: Answer[] | AnswerUserInput,
    options: RequestOptions = {},
  ): Promise<UserInputAnswered> {
    await this.requireCapability("user_input", "answerUserInput", options);
    const body: AnswerUserInput = Array.isArray(answers) ? { answers } : answers;
    return this.request("POST", `/v1/user-input/${seg(threadId)}/${seg(inputId)}`, { ...options, body });
  }

  /**
   * `POST /v1/threads/{id}/turns/{turn}/tool-calls/{call}/result`: what a
   * client-executed tool produced (202: durably accepted). A call already
   * settled is a 404. {@link registerTool} does this for you.
   */
  async submitToolResult(
    threadId: string,
    turnId: string,
    callId: string,
    result: DynamicToolResult,
    options: RequestOptions = {},
  ): Promise<ToolResultAccepted> {
    await this.requireCapability("external_tools", "submitToolResult", options);
    return this.request(
      "POST",
      `/v1/threads/${seg(threadId)}/turns/${seg(turnId)}/tool-calls/${seg(callId)}/result`,
      { ...options, body: result },
    );
  }

  // ---- the workspace ---------------------------------------------------

  /**
   * `GET /v1/threads/{id}/workspace/browse`: one directory of the thread's
   * own workspace (`path` relative to it; the root when absent).
   */
  async browseThreadWorkspace(threadId: string, path?: string, options: RequestOptions = {}): Promise<WorkspaceListing> {
    return this.request("GET", `/v1/threads/${seg(threadId)}/workspace/browse`, { ...options, query: { path } });
  }

  /** `GET /v1/threads/{id}/workspace/file`: one text file (`binary: true` and no content for others). */
  async readThreadWorkspaceFile(threadId: string, path: string, options: RequestOptions = {}): Promise<WorkspaceFile> {
    return this.request("GET", `/v1/threads/${seg(threadId)}/workspace/file`, { ...options, query: { path } });
  }

  /** `GET /v1/threads/{id}/workspace/diff`: the workspace against HEAD, bounded (`truncated`). */
  async threadWorkspaceDiff(threadId: string, options: RequestOptions = {}): Promise<WorkspaceDiff> {
    return this.request("GET", `/v1/threads/${seg(threadId)}/workspace/diff`, options);
  }

  /** `GET /v1/workspace/browse`: a directory of a workspace the runtime knows (the composer's). */
  async browseWorkspace(workspace: string, path?: string, options: RequestOptions = {}): Promise<WorkspaceListing> {
    return this.request("GET", "/v1/workspace/browse", { ...options, query: { workspace, path } });
  }

  /** `GET /v1/workspace/file`: a file of a workspace the runtime knows. */
  async readWorkspaceFile(workspace: string, path: string, options: RequestOptions = {}): Promise<WorkspaceFile> {
    return this.request("GET", "/v1/workspace/file", { ...options, query: { workspace, path } });
  }

  /** `GET /v1/workspace/status`: branch, head, upstream, counts (the default workspace when none is given). */
  async workspaceStatus(workspace?: string, options: RequestOptions = {}): Promise<WorkspaceStatus> {
    return this.request("GET", "/v1/workspace/status", { ...options, query: { workspace } });
  }

  // ---- usage, devices -------------------------------------------------

  /** `GET /v1/usage`: tokens and cost, grouped by day, model, provider or thread. */
  async usage(query: UsageQuery = {}, options: RequestOptions = {}): Promise<UsageReport> {
    await this.requireCapability("usage", "usage", options);
    return this.request("GET", "/v1/usage", { ...options, query: query as Query });
  }

  /**
   * `GET /v1/devices`: paired phones. Listing, renaming and revoking work
   * on any server of the same home (a phone paired earlier can be revoked
   * after a restart without `--mobile`); only pairing needs `mobile`.
   */
  async listDevices(options: RequestOptions = {}): Promise<DeviceRecord[]> {
    return this.request("GET", "/v1/devices", options);
  }

  /** `PATCH /v1/devices/{id}`. */
  async renameDevice(deviceId: string, name: string, options: RequestOptions = {}): Promise<DeviceRecord> {
    return this.request("PATCH", `/v1/devices/${seg(deviceId)}`, { ...options, body: { name } });
  }

  /** `DELETE /v1/devices/{id}`: its sessions and streams end at once. */
  async revokeDevice(deviceId: string, options: RequestOptions = {}): Promise<DeviceRevoked> {
    return this.request("DELETE", `/v1/devices/${seg(deviceId)}`, options);
  }

  /** `POST /v1/devices/pairings`: a one-time pairing link (and its QR code). */
  async createPairing(body: CreatePairing = {}, options: RequestOptions = {}): Promise<PairingCreated> {
    await this.requireCapability("mobile", "createPairing", options);
    return this.request("POST", "/v1/devices/pairings", { ...options, body });
  }

  // ---- tasks ----------------------------------------------------------

  /** `GET /v1/tasks`: newest first, optionally one status. */
  async listTasks(query: ListTasks = {}, options: RequestOptions = {}): Promise<TaskRecord[]> {
    await this.requireCapability("tasks", "listTasks", options);
    return this.request("GET", "/v1/tasks", { ...options, query: query as Query });
  }

  /**
   * `POST /v1/tasks`: queues a turn that runs with no client attached, on
   * a new thread or `thread_id`. Poll {@link getTask} (or follow its
   * thread's events) for the answer.
   */
  async createTask(body: CreateTask, options: RequestOptions = {}): Promise<TaskRecord> {
    await this.requireCapability("tasks", "createTask", options);
    return this.request("POST", "/v1/tasks", { ...options, body });
  }

  /** `GET /v1/tasks/{id}`. */
  async getTask(taskId: string, options: RequestOptions = {}): Promise<TaskRecord> {
    return this.request("GET", `/v1/tasks/${seg(taskId)}`, options);
  }

  /** `POST /v1/tasks/{id}/cancel`: a queued task ends at once, a running one's turn is interrupted. */
  async cancelTask(taskId: string, options: RequestOptions = {}): Promise<TaskRecord> {
    return this.request("POST", `/v1/tasks/${seg(taskId)}/cancel`, options);
  }

  /** `POST /v1/tasks/clear`: removes completed and cancelled tasks. */
  async clearTasks(options: RequestOptions = {}): Promise<TasksCleared> {
    return this.request("POST", "/v1/tasks/clear", options);
  }

  // ---- automations ----------------------------------------------------

  /** `GET /v1/automations`: oldest first, each with its next run. */
  async listAutomations(options: RequestOptions = {}): Promise<AutomationRecord[]> {
    await this.requireCapability("automations", "listAutomations", options);
    return this.request("GET", "/v1/automations", options);
  }

  /**
   * `POST /v1/automations`: a prompt run on a 5-field cron `schedule` (in
   * `timezone`, default the server machine's) or every `interval_seconds`.
   * Each run is a task.
   */
  async createAutomation(body: CreateAutomation, options: RequestOptions = {}): Promise<AutomationRecord> {
    await this.requireCapability("automations", "createAutomation", options);
    return this.request("POST", "/v1/automations", { ...options, body });
  }

  /** `GET /v1/automations/preview`: a schedule in words and its next five runs, nothing saved. */
  async previewSchedule(query: PreviewSchedule, options: RequestOptions = {}): Promise<SchedulePreview> {
    await this.requireCapability("automations", "previewSchedule", options);
    return this.request("GET", "/v1/automations/preview", { ...options, query: query as Query });
  }

  /** `GET /v1/automations/{id}`. */
  async getAutomation(automationId: string, options: RequestOptions = {}): Promise<AutomationRecord> {
    return this.request("GET", `/v1/automations/${seg(automationId)}`, options);
  }

  /** `PATCH /v1/automations/{id}`: a new schedule or time zone counts from now. */
  async updateAutomation(automationId: string, body: PatchAutomation, options: RequestOptions = {}): Promise<AutomationRecord> {
    return this.request("PATCH", `/v1/automations/${seg(automationId)}`, { ...options, body });
  }

  /** `DELETE /v1/automations/{id}`: it and its run history; its tasks and threads stay. */
  async deleteAutomation(automationId: string, options: RequestOptions = {}): Promise<void> {
    await this.request("DELETE", `/v1/automations/${seg(automationId)}`, options);
  }

  /** `POST /v1/automations/{id}/run`: runs it now (409 while its last run is going). */
  async runAutomation(automationId: string, options: RequestOptions = {}): Promise<AutomationRun> {
    return this.request("POST", `/v1/automations/${seg(automationId)}/run`, options);
  }

  /** `POST /v1/automations/{id}/pause`. */
  async pauseAutomation(automationId: string, options: RequestOptions = {}): Promise<AutomationRecord> {
    return this.request("POST", `/v1/automations/${seg(automationId)}/pause`, options);
  }

  /** `POST /v1/automations/{id}/resume`: scheduled again from the next run after now. */
  async resumeAutomation(automationId: string, options: RequestOptions = {}): Promise<AutomationRecord> {
    return this.request("POST", `/v1/automations/${seg(automationId)}/resume`, options);
  }

  /** `GET /v1/automations/{id}/runs`: newest first, each with its task or why it was skipped. */
  async listAutomationRuns(automationId: string, query: ListAutomationRuns = {}, options: RequestOptions = {}): Promise<AutomationRun[]> {
    return this.request("GET", `/v1/automations/${seg(automationId)}/runs`, { ...options, query: query as Query });
  }

  // ---- fleet ----------------------------------------------------------

  /** `GET /v1/fleet/runs`: newest first, each with its workers' counts. */
  async listFleetRuns(query: ListFleetRuns = {}, options: RequestOptions = {}): Promise<FleetRuns> {
    await this.requireCapability("fleet", "listFleetRuns", options);
    return this.request("GET", "/v1/fleet/runs", { ...options, query: query as Query });
  }

  /**
   * `POST /v1/fleet/runs`: every worker queued, `max_parallel` at a time;
   * with worktree isolation (the default) each in its own git worktree and
   * branch made from the workspace's HEAD commit.
   */
  async createFleetRun(body: CreateFleetRun, options: RequestOptions = {}): Promise<FleetRunDetail> {
    await this.requireCapability("fleet", "createFleetRun", options);
    return this.request("POST", "/v1/fleet/runs", { ...options, body });
  }

  /** `GET /v1/fleet/runs/{run_id}`: the run and its result (each worker's branch, diff stat, answer). */
  async getFleetRun(runId: string, options: RequestOptions = {}): Promise<FleetRunDetail> {
    return this.request("GET", `/v1/fleet/runs/${seg(runId)}`, options);
  }

  /** `GET /v1/fleet/runs/{run_id}/workers`. */
  async listFleetWorkers(runId: string, options: RequestOptions = {}): Promise<FleetWorkers> {
    return this.request("GET", `/v1/fleet/runs/${seg(runId)}/workers`, options);
  }

  /** `GET /v1/fleet/workers/{worker_id}`. */
  async getFleetWorker(workerId: string, options: RequestOptions = {}): Promise<FleetWorker> {
    return this.request("GET", `/v1/fleet/workers/${seg(workerId)}`, options);
  }

  /** `POST /v1/fleet/workers/{worker_id}/interrupt`: cancels a queued worker, interrupts a running one. */
  async interruptWorker(workerId: string, options: RequestOptions = {}): Promise<FleetWorker> {
    return this.request("POST", `/v1/fleet/workers/${seg(workerId)}/interrupt`, options);
  }

  /** `POST /v1/fleet/workers/{worker_id}/restart`: a new attempt on its thread, in its worktree. */
  async restartWorker(workerId: string, options: RequestOptions = {}): Promise<FleetWorker> {
    return this.request("POST", `/v1/fleet/workers/${seg(workerId)}/restart`, options);
  }

  /** `POST /v1/fleet/runs/{run_id}/stop`. */
  async stopFleetRun(runId: string, options: RequestOptions = {}): Promise<FleetRunDetail> {
    return this.request("POST", `/v1/fleet/runs/${seg(runId)}/stop`, options);
  }

  /** `POST /v1/fleet/runs/{run_id}/cleanup`: removes the worktrees, keeps the branches. */
  async cleanUpFleetRun(runId: string, options: RequestOptions = {}): Promise<FleetRunDetail> {
    return this.request("POST", `/v1/fleet/runs/${seg(runId)}/cleanup`, options);
  }

  /** The run's events, replayed and then live: see {@link fleetEvents}. */
  fleetEvents(runId: string, options: FleetEventsOptions = {}): AsyncGenerator<FleetEvent, void, undefined> {
    return fleetEvents(this, runId, options);
  }

  // ---- agent runs -----------------------------------------------------

  /** `GET /v1/agent-runs`: sub-agent receipts, newest first (`parent_thread_id` narrows to one thread's). */
  async listAgentRuns(query: ListAgentRuns = {}, options: RequestOptions = {}): Promise<AgentRuns> {
    await this.requireCapability("agent_runs", "listAgentRuns", options);
    return this.request("GET", "/v1/agent-runs", { ...options, query: query as Query });
  }

  /** `GET /v1/agent-runs/{run_id}`: one receipt, by run id or by the child thread's id. */
  async getAgentRun(runId: string, options: RequestOptions = {}): Promise<AgentRun> {
    await this.requireCapability("agent_runs", "getAgentRun", options);
    return this.request("GET", `/v1/agent-runs/${seg(runId)}`, options);
  }

  /**
   * Removes an ended worktree run's worktree (its branch stays, with work
   * left in the worktree committed on it first). 409 while the run is
   * running or for a run in its parent's workspace.
   */
  async cleanUpAgentRun(runId: string, options: RequestOptions = {}): Promise<AgentRun> {
    await this.requireCapability("agent_runs", "cleanUpAgentRun", options);
    return this.request("POST", `/v1/agent-runs/${seg(runId)}/cleanup`, options);
  }

  // ---- skills ---------------------------------------------------------

  /** `GET /v1/skills`: the home's and the workspace's skills, each with its toggle (read fresh: another process's toggle shows at once). */
  async listSkills(query: ListSkills = {}, options: RequestOptions = {}): Promise<SkillRecord[]> {
    await this.requireCapability("skills", "listSkills", options);
    return this.request("GET", "/v1/skills", { ...options, query: query as Query });
  }

  /** `POST /v1/skills`: writes `<name>/SKILL.md` (409 when that place already has the name). */
  async createSkill(body: CreateSkill, options: RequestOptions = {}): Promise<SkillRecord> {
    await this.requireCapability("skills", "createSkill", options);
    return this.request("POST", "/v1/skills", { ...options, body });
  }

  /** `POST /v1/skills/import`: copies a skill from a folder or a zip/tar archive on the server's machine; nothing in it runs. */
  async importSkill(body: ImportSkill, options: RequestOptions = {}): Promise<SkillRecord> {
    await this.requireCapability("skills", "importSkill", options);
    return this.request("POST", "/v1/skills/import", { ...options, body });
  }

  /** `PATCH /v1/skills/{name}`: switches a skill on or off for every process on the home. */
  async setSkillEnabled(name: string, body: PatchSkill, options: RequestOptions = {}): Promise<SkillRecord> {
    await this.requireCapability("skills", "patchSkill", options);
    return this.request("PATCH", `/v1/skills/${seg(name)}`, { ...options, body });
  }

  // ---- MCP servers ----------------------------------------------------

  /** `GET /v1/apps/mcp/servers`: the servers of config.toml and where each stands (environment and header values never shown). */
  async listMcpServers(options: RequestOptions = {}): Promise<McpServers> {
    await this.requireCapability("mcp_servers", "listMcpServers", options);
    return this.request("GET", "/v1/apps/mcp/servers", options);
  }

  /** `POST /v1/apps/mcp/servers`: adds a stdio (`command`) or HTTP (`url`) server to config.toml; it starts on first use. */
  async createMcpServer(body: CreateMcpServer, options: RequestOptions = {}): Promise<McpServerRecord> {
    await this.requireCapability("mcp_servers", "createMcpServer", options);
    return this.request("POST", "/v1/apps/mcp/servers", { ...options, body });
  }

  /** `GET /v1/apps/mcp/servers/{name}`. */
  async getMcpServer(name: string, options: RequestOptions = {}): Promise<McpServerRecord> {
    await this.requireCapability("mcp_servers", "getMcpServer", options);
    return this.request("GET", `/v1/apps/mcp/servers/${seg(name)}`, options);
  }

  /** `PATCH /v1/apps/mcp/servers/{name}`: a running server stops and starts again as changed on its next use. */
  async patchMcpServer(name: string, body: PatchMcpServer, options: RequestOptions = {}): Promise<McpServerRecord> {
    await this.requireCapability("mcp_servers", "patchMcpServer", options);
    return this.request("PATCH", `/v1/apps/mcp/servers/${seg(name)}`, { ...options, body });
  }

  /** `DELETE /v1/apps/mcp/servers/{name}`: removed from config.toml and stopped. */
  async deleteMcpServer(name: string, options: RequestOptions = {}): Promise<void> {
    await this.requireCapability("mcp_servers", "deleteMcpServer", options);
    await this.request("DELETE", `/v1/apps/mcp/servers/${seg(name)}`, options);
  }

  /** `POST /v1/apps/mcp/servers/{name}/reload`: starts it afresh now; answers within about two seconds. */
  async reloadMcpServer(name: string, options: RequestOptions = {}): Promise<McpServerRecord> {
    await this.requireCapability("mcp_servers", "reloadMcpServer", options);
    return this.request("POST", `/v1/apps/mcp/servers/${seg(name)}/reload`, options);
  }

  /** `GET /v1/apps/mcp/tools`: the ready servers' tools as the model sees them; a server still starting is listed `starting`. */
  async listMcpTools(query: ListMcpTools = {}, options: RequestOptions = {}): Promise<McpTools> {
    await this.requireCapability("mcp_servers", "listMcpTools", options);
    return this.request("GET", "/v1/apps/mcp/tools", { ...options, query: query as Query });
  }

  // ---- sessions -------------------------------------------------------

  /** `GET /v1/sessions`: saved conversations, newest first (`search` matches title, name or id). */
  async listSessions(query: ListSessions = {}, options: RequestOptions = {}): Promise<Sessions> {
    await this.requireCapability("sessions", "listSessions", options);
    return this.request("GET", "/v1/sessions", { ...options, query: query as Query });
  }

  /** `GET /v1/sessions/{id}`: metadata, messages and system prompt. */
  async getSession(sessionId: string, options: RequestOptions = {}): Promise<SessionDetail> {
    await this.requireCapability("sessions", "getSession", options);
    return this.request("GET", `/v1/sessions/${seg(sessionId)}`, options);
  }

  /** `DELETE /v1/sessions/{id}`. */
  async deleteSession(sessionId: string, options: RequestOptions = {}): Promise<void> {
    await this.requireCapability("sessions", "deleteSession", options);
    await this.request("DELETE", `/v1/sessions/${seg(sessionId)}`, options);
  }

  /** `POST /v1/sessions/{id}/resume-thread`: a new thread carrying the session's conversation. */
  async resumeSessionThread(sessionId: string, options: RequestOptions = {}): Promise<ThreadRecord> {
    await this.requireCapability("sessions", "resumeSessionThread", options);
    return this.request("POST", `/v1/sessions/${seg(sessionId)}/resume-thread`, options);
  }

  /** `POST /v1/threads/{id}/persist-session`: saves the thread's conversation as a session. */
  async persistSession(threadId: string, body: PersistSession = {}, options: RequestOptions = {}): Promise<SessionMetadata> {
    await this.requireCapability("sessions", "persistSession", options);
    return this.request("POST", `/v1/threads/${seg(threadId)}/persist-session`, { ...options, body });
  }

  // ---- streaming ------------------------------------------------------

  /**
   * The thread's events from `sinceSeq` (exclusive; 0 = from the start),
   * live, resuming across dropped connections: see {@link streamEvents}
   * and the README for the exact guarantee.
   */
  events(threadId: string, options: EventsOptions = {}): AsyncGenerator<ThreadStreamItem, void, undefined> {
    return streamEvents(this, threadId, options);
  }

  /**
   * Answers a client-executed tool on `threadId`: see {@link registerTool}.
   */
  registerTool<Args = unknown>(
    threadId: string,
    tool: ToolDefinition<Args>,
    options: RegisterToolOptions = {},
  ): ToolRegistration {
    return registerTool(this, threadId, tool, options);
  }
}

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts. */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", abort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", abort);
        reject(error);
      },
    );
  });
}

const MIN_REDACTED = 6;
const SECRET_HEADER = /authorization|cookie|token|secret|key|password/i;

/** The base URL without a trailing `/` or `/v1`; refuses what cannot work (and never repeats it). */
function checkBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError("createRuntimeClient: baseUrl is not an absolute URL (e.g. http://127.0.0.1:7878)");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError("createRuntimeClient: baseUrl must start with http:// or https:// (e.g. http://127.0.0.1:7878)");
  }
  if (url.username !== "" || url.password !== "") {
    throw new TypeError("createRuntimeClient: baseUrl must not contain credentials (user:pass@); pass the token as options.token");
  }
  if (url.search !== "" || url.hash !== "") {
    throw new TypeError("createRuntimeClient: baseUrl must not have a query or fragment");
  }
  let base = (url.origin + url.pathname).replace(/\/+$/, "");
  if (base.endsWith("/v1")) base = base.slice(0, -3);
  return base;
}

/** Refuses a token that cannot be sent as a header value (without repeating it). */
function checkToken(token: unknown): void {
  if (typeof token !== "string" || token === "") {
    throw new TypeError("createRuntimeClient: token must be a non-empty string");
  }
  // A header value is Latin-1 without control characters; leading or
  // trailing spaces would be trimmed away by fetch.
  if (/[^\x20-\x7e\x80-\xff]/.test(token) || token.trim() !== token) {
    throw new TypeError(
      "createRuntimeClient: token contains characters a header cannot carry (control characters, a newline, NUL, non-Latin-1, or surrounding spaces)",
    );
  }
}

/** Why fetch would refuse to build this request (named, never quoting values), or undefined. */
function requestProblem(url: string, headers: Record<string, string>): string | undefined {
  try {
    new URL(url);
  } catch {
    return "the request URL is invalid";
  }
  for (const [name, value] of Object.entries(headers)) {
    try {
      new Headers([[name, value]]);
    } catch {
      return `header ${/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/.test(name) ? name : "(invalid name)"} has an invalid name or value`;
    }
  }
  return undefined;
}
