import { RuntimeApiError } from "./errors.js";
import { isResync, type EventsOptions } from "./events.js";
import type { RuntimeClient } from "./client.js";
import type { DynamicToolResult, DynamicToolSpec, ToolCallRequestedPayload, ToolContent } from "./types.js";

/** What a tool handler may return. */
export type ToolHandlerResult = string | ToolContent[] | DynamicToolResult;

/** The call a handler is answering. */
export interface ToolCall<Args = unknown> {
  threadId: string;
  turnId: string;
  callId: string;
  tool: string;
  namespace: string | null;
  arguments: Args;
  /**
   * Aborted when the call no longer needs an answer: it timed out, was
   * canceled (the turn ended) or answered by someone else, or the
   * registration stopped. A result returned after that is not sent.
   */
  signal: AbortSignal;
}

export interface ToolDefinition<Args = unknown> {
  /** 1-64 letters, digits, `_` or `-`; not a built-in tool's name. */
  name: string;
  /** Optional; the model sees `namespace__name`. */
  namespace?: string;
  description?: string;
  /** A JSON Schema of the arguments (an object schema). */
  inputSchema?: { type: "object"; [keyword: string]: unknown };
  /**
   * Runs once per call. A string or content list is a success; throwing
   * sends `success: false` with the error's message.
   */
  handler: (args: Args, call: ToolCall<Args>) => ToolHandlerResult | Promise<ToolHandlerResult>;
}

/** How one call ended, from this registration's side. */
export type ToolCallOutcome =
  /** The handler is running or its result is being sent. */
  | "running"
  /** The result was accepted by the server (202). */
  | "answered"
  /** Settled without this registration's result: timed out, canceled, or answered elsewhere. */
  | "settled"
  /** Sending the result failed (see `onError`). */
  | "failed"
  /** The registration stopped before the result was sent. */
  | "stopped";

export interface RegisterToolOptions {
  signal?: AbortSignal;
  /** Errors that do not stop the registration (a result that could not be sent). */
  onError?: (error: unknown, call?: ToolCall) => void;
  /** Told once per call this registration ran, when it ends here. */
  onCall?: (call: ToolCall, outcome: Exclude<ToolCallOutcome, "running">) => void;
  /** Tuning of the event stream the registration follows. */
  events?: Pick<EventsOptions, "reconnect" | "idleTimeoutMs" | "onReconnect">;
}

export interface ToolRegistration {
  /** Put it in `dynamic_tools` of the thread (createThread) or of a turn (startTurn). */
  readonly spec: DynamicToolSpec;
  /** Resolves once pending calls were read from the snapshot and the stream follows the thread. */
  readonly ready: Promise<void>;
  /** Resolves when stopped; rejects when the stream fails for good (401, 403, 404…). */
  readonly done: Promise<void>;
  /** Each call this registration saw for its tool, by call id. */
  readonly calls: ReadonlyMap<string, ToolCallOutcome>;
  stop(): void;
}

/** The `dynamic_tools` entry of a tool definition. */
export function toolSpec(tool: Pick<ToolDefinition, "name" | "namespace" | "description" | "inputSchema">): DynamicToolSpec {
  const spec: DynamicToolSpec = {
    name: tool.name,
    description: tool.description ?? "",
    input_schema: tool.inputSchema ?? { type: "object", properties: {} },
  };
  if (tool.namespace !== undefined) spec.namespace = tool.namespace;
  return spec;
}

/** The tools registered per client, by thread, namespace and name. */
const REGISTERED = new WeakMap<RuntimeClient, Map<string, object>>();

const TERMINAL = new Set(["tool_call.resolved", "tool_call.timeout", "tool_call.canceled"]);

/**
 * Answers `tool` whenever the model calls it on `threadId`, until stopped.
 *
 * It reads the thread's snapshot (calls already waiting are answered too),
 * then follows the event stream from the snapshot's `latest_seq`. Each
 * live `tool_call.requested` of this tool runs the handler once and its
 * result is posted once; a call that settles while its handler runs gets
 * its `signal` aborted and no result. After every (re)connection the
 * stream first replays what happened meanwhile, where a call may be
 * requested and already timed out, canceled or resolved: the first
 * request of this tool in it makes the registration read the snapshot
 * again, and calls up to the snapshot's `latest_seq` run only if the
 * snapshot still lists them as pending (calls after it are live). So
 * calls already settled are never run. Across reconnections the stream
 * neither repeats nor skips events (see `events()`), and a call is never
 * run twice by one registration. A result whose POST gets no answer is retried (the
 * server settles a call once: a repeat is refused with 404, counted as
 * "settled").
 */
export function registerTool<Args = unknown>(
  client: RuntimeClient,
  threadId: string,
  tool: ToolDefinition<Args>,
  options: RegisterToolOptions = {},
): ToolRegistration {
  const spec = toolSpec(tool);
  const namespace = tool.namespace ?? null;
  // Two registrations of one tool would each run the handler and post.
  const key = JSON.stringify([threadId, namespace, tool.name]);
  let registered = REGISTERED.get(client);
  if (!registered) REGISTERED.set(client, (registered = new Map()));
  if (registered.has(key)) {
    throw new Error(
      `registerTool: ${namespace === null ? "" : namespace + "__"}${tool.name} is already registered on thread ${threadId} by this client; stop that registration first`,
    );
  }
  const me = {};
  registered.set(key, me);
  const release = () => {
    if (registered.get(key) === me) registered.delete(key);
  };
  const stopper = new AbortController();
  const stop = () => stopper.abort();
  if (options.signal) {
    if (options.signal.aborted) stop();
    else options.signal.addEventListener("abort", stop, { once: true });
  }
  const calls = new Map<string, ToolCallOutcome>();
  /** Per running call: aborted when it settles (the handler's signal). */
  const running = new Map<string, AbortController>();
  /** Per running call: aborted when the registration stops (its POST, its pauses). */
  const posting = new Map<string, AbortController>();
  /** The terminal event seen for each call, and who waits for one. */
  const terminals = new Map<string, string>();
  const terminalWaiters = new Map<string, (event: string) => void>();
  // One listener on the registration's signal for all calls (not one per
  // call: no MaxListenersExceededWarning with many calls at once).
  stopper.signal.addEventListener(
    "abort",
    () => {
      for (const controller of posting.values()) controller.abort();
      for (const controller of running.values()) controller.abort();
      for (const wake of terminalWaiters.values()) wake("stopped");
      release(); // stopped: the tool may be registered again at once
    },
    { once: true },
  );
  const report = (error: unknown, call?: ToolCall) => {
    try {
      options.onError?.(error, call as ToolCall | undefined);
    } catch {
      // a throwing error hook must not stop the registration
    }
  };

  const mine = (call: { tool?: unknown; namespace?: unknown }) =>
    call.tool === tool.name && ((call.namespace as string | null | undefined) ?? null) === namespace;

  const finish = (call: ToolCall, outcome: Exclude<ToolCallOutcome, "running">) => {
    calls.set(call.callId, outcome);
    try {
      options.onCall?.(call, outcome);
    } catch {
      // a throwing hook must not stop the registration
    }
  };

  /** A terminal event of a call: its handler's result is not wanted any more. */
  const settle = (callId: string, event: string) => {
    terminals.set(callId, event);
    terminalWaiters.get(callId)?.(event);
    const handler = running.get(callId);
    if (handler) handler.abort(); // answer() records how it ended
    else if (!calls.has(callId)) calls.set(callId, "settled");
  };

  /** The terminal event of `callId` (waits for it), or "stopped". */
  const terminalOf = (callId: string): Promise<string> => {
    const seen = terminals.get(callId);
    if (seen !== undefined) return Promise.resolve(seen);
    if (stopper.signal.aborted) return Promise.resolve("stopped");
    return new Promise((resolve) => {
      terminalWaiters.set(callId, (event) => {
        terminalWaiters.delete(callId);
        resolve(event);
      });
    });
  };

  const answer = async (request: ToolCallRequestedPayload) => {
    const callId = request.call_id;
    const perCall = new AbortController();
    const post = new AbortController();
    running.set(callId, perCall);
    posting.set(callId, post);
    if (stopper.signal.aborted) {
      perCall.abort();
      post.abort();
    }
    const call: ToolCall<Args> = {
      threadId: request.thread_id ?? threadId,
      turnId: request.turn_id,
      callId,
      tool: request.tool,
      namespace: request.namespace ?? null,
      arguments: request.arguments as Args,
      signal: perCall.signal,
    };
    const done = (outcome: Exclude<ToolCallOutcome, "running">) => finish(call as ToolCall, outcome);
    try {
      let result: DynamicToolResult;
      try {
        result = toResult(await tool.handler(call.arguments, call));
      } catch (error) {
        if (error instanceof InvalidToolResult) report(error, call as ToolCall);
        // The model reads this: never the token (a handler's error may quote a request).
        result = { success: false, content: [{ type: "input_text", text: client.redact(messageOf(error)) }] };
      }
      // Settled meanwhile (timed out, canceled, answered elsewhere) or stopped: nothing to send.
      if (stopper.signal.aborted) return done("stopped");
      if (perCall.signal.aborted) return done("settled");
      /** An earlier attempt may have reached the server though its answer was lost. */
      let uncertain = false;
      for (let attempt = 1; ; attempt++) {
        try {
          await client.submitToolResult(call.threadId, call.turnId, callId, result, { signal: post.signal });
          return done("answered");
        } catch (error) {
          if (stopper.signal.aborted) return done("stopped");
          // The server settles a call once: 404 means it is settled already.
          if (error instanceof RuntimeApiError && error.status === 404) {
            if (!uncertain) return done("settled");
            // Settled by our lost attempt (resolved) or by a timeout or cancel: the stream says which.
            const terminal = await terminalOf(callId);
            if (terminal === "stopped") return done("stopped");
            return done(terminal === "tool_call.resolved" ? "answered" : "settled");
          }
          const retry = error instanceof RuntimeApiError && error.retryable && attempt < 4;
          if (!retry) {
            report(error, call as ToolCall);
            return done("failed");
          }
          uncertain = true;
          await pause(200 * 2 ** attempt, post.signal);
        }
      }
    } finally {
      running.delete(callId);
      posting.delete(callId);
    }
  };

  const consider = (request: ToolCallRequestedPayload) => {
    if (!request || typeof request.call_id !== "string" || !mine(request)) return;
    if (calls.has(request.call_id)) return; // seen already: run at most once
    calls.set(request.call_id, "running");
    void answer(request).catch((error) => report(error));
  };

  let markReady: () => void = () => {};
  let failReady: (error: unknown) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });

  /**
   * After each (re)connection the stream first replays what happened while
   * it was away: a call requested then may be settled already (its
   * terminal event follows in the same replay). Such a call must not be
   * run, so the first request of this tool after a (re)connection reads
   * the snapshot: calls up to its `latest_seq` run only when still
   * pending there; calls after it are live and run at once.
   */
  let caughtUp = false;
  let snapshotSeq = 0;
  let stillPending = new Set<string>();

  const checkpoint = async (signal: AbortSignal) => {
    for (let attempt = 1; ; attempt++) {
      try {
        const detail = await client.getThread(threadId, { signal });
        snapshotSeq = detail.latest_seq;
        stillPending = new Set(
          (detail.pending_dynamic_tool_calls as ToolCallRequestedPayload[]).map((p) => p.call_id),
        );
        caughtUp = true;
        return;
      } catch (error) {
        if (signal.aborted) throw error;
        if (!(error instanceof RuntimeApiError && error.retryable)) throw error;
        await pause(Math.min(5_000, 100 * 2 ** attempt), signal);
      }
    }
  };

  const follow = async () => {
    const signal = stopper.signal;
    try {
      await client.requireCapability("external_tools", "registerTool", { signal });
      const detail = await client.getThread(threadId, { signal });
      for (const request of detail.pending_dynamic_tool_calls) consider(request as ToolCallRequestedPayload);
      markReady();
      const userReconnect = options.events?.onReconnect;
      const stream = client.events(threadId, {
        ...(options.events ?? {}),
        sinceSeq: detail.latest_seq,
        signal,
        onReconnect: (info) => {
          caughtUp = false; // the next connection starts with a replay
          userReconnect?.(info);
        },
      });
      for await (const item of stream) {
        if (isResync(item)) {
          const pending = item.snapshot.pending_dynamic_tool_calls as ToolCallRequestedPayload[];
          const waiting = new Set(pending.map((p) => p.call_id));
          for (const callId of [...running.keys()]) if (!waiting.has(callId)) settle(callId, "stream.resync");
          for (const request of pending) consider(request);
        } else if (item.event === "tool_call.requested") {
          const request = item.payload as ToolCallRequestedPayload;
          if (!request || typeof request.call_id !== "string" || !mine(request) || calls.has(request.call_id)) continue;
          if (!caughtUp) await checkpoint(signal);
          if (item.seq <= snapshotSeq && !stillPending.has(request.call_id)) {
            calls.set(request.call_id, "settled"); // settled while the stream was away: never run
            continue;
          }
          consider(request);
        } else if (TERMINAL.has(item.event)) {
          const payload = item.payload as { call_id?: unknown; tool?: unknown; namespace?: unknown };
          if (typeof payload?.call_id === "string" && mine(payload)) settle(payload.call_id, item.event);
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      failReady(error);
      throw error;
    } finally {
      markReady();
      stopper.abort();
      release();
    }
  };

  const done = follow();
  // Both are also reported through `done`: never an unhandled rejection.
  ready.catch(() => {});
  done.catch(() => {});
  return { spec, ready, done, calls, stop };
}

/** A handler's result that is not a string, a content list or `{ success, content }`. */
class InvalidToolResult extends TypeError {
  override readonly name = "InvalidToolResult";
}

/**
 * The handler's result as the server takes it (`DynamicToolResult`):
 * exactly `{ success, content? }` with `input_text` / `input_image` items.
 * Anything else throws {@link InvalidToolResult}, sent to the model as a
 * failure that says so (rather than a body the server refuses with 400,
 * leaving the model waiting for the call's timeout).
 */
function toResult(value: ToolHandlerResult): DynamicToolResult {
  if (typeof value === "string") return { success: true, content: [{ type: "input_text", text: value }] };
  if (Array.isArray(value)) return { success: true, content: toContent(value) };
  if (value && typeof value === "object") {
    const { success, content } = value as { success?: unknown; content?: unknown };
    if (typeof success !== "boolean") {
      throw new InvalidToolResult("the tool handler returned an object without a boolean `success`");
    }
    if (content === undefined || content === null) return { success };
    if (!Array.isArray(content)) throw new InvalidToolResult("the tool handler's `content` is not a list");
    return { success, content: toContent(content) };
  }
  throw new InvalidToolResult("a tool handler must return a string, a content list or { success, content }");
}

function toContent(items: unknown[]): ToolContent[] {
  return items.map((item, i) => {
    const part = item as { type?: unknown; text?: unknown; image_url?: unknown } | null;
    if (part && part.type === "input_text" && typeof part.text === "string") return { type: "input_text", text: part.text };
    if (part && part.type === "input_image" && typeof part.image_url === "string") {
      return { type: "input_image", image_url: part.image_url };
    }
    throw new InvalidToolResult(
      `the tool handler's content[${i}] is not { type: "input_text", text } or { type: "input_image", image_url }`,
    );
  });
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener("abort", wake, { once: true });
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
