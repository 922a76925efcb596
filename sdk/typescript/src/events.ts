import { errorFromResponse, RuntimeApiError, StreamCursorError } from "./errors.js";
import { SseParser, StreamProtocolError } from "./sse.js";
import type { RuntimeClient } from "./client.js";
import type { RuntimeEvent, ThreadDetail } from "./types.js";

/** How {@link streamEvents} reconnects. */
export interface ReconnectOptions {
  /** First delay after a failure, in ms (default 250). */
  initialDelayMs?: number;
  /** The cap of the exponential delay, in ms (default 10 000). */
  maxDelayMs?: number;
  /**
   * Retries in a row (no event delivered in between) before the stream
   * gives up and throws the last error. Default: never give up.
   */
  maxRetries?: number;
}

export interface EventsOptions {
  /**
   * Deliver events after this seq (exclusive). 0 (the default) replays
   * the thread from its first event; a snapshot's `latest_seq` (from
   * {@link RuntimeClient.getThread}) continues from that snapshot.
   */
  sinceSeq?: number;
  /** Ends the iteration (quietly, without an error) when aborted. */
  signal?: AbortSignal;
  reconnect?: ReconnectOptions;
  /**
   * A connection that carries nothing (not even the server's 15 s
   * heartbeat) for this long is dropped and reopened. Default 45 000 ms;
   * 0 turns it off.
   */
  idleTimeoutMs?: number;
  /**
   * The longest line and largest event accepted from the server, in
   * UTF-16 code units (default 32 MiB). More is a fatal
   * {@link StreamProtocolError}, not retried.
   */
  maxEventSize?: number;
  /** Told before each reconnection (for logs and tests). */
  onReconnect?: (info: ReconnectInfo) => void;
}

export interface ReconnectInfo {
  /** Why: the connection failed or ended, or a gap is being refilled. */
  reason: "error" | "ended" | "gap" | "snapshot";
  /** The seq the next connection resumes after. */
  sinceSeq: number;
  /** Consecutive failures so far (0 for a gap refill). */
  attempt: number;
  delayMs: number;
  error?: unknown;
}

/**
 * Yielded instead of events the server could no longer replay: the
 * thread's snapshot (`GET /v1/threads/{id}`) as of `seq` (its
 * `latest_seq`). Events with seq in (`previous_seq`, `seq`] were not
 * delivered; the snapshot holds their effect (as the browser does when it
 * sees a gap). Streaming goes on from `seq`.
 */
export interface StreamResync {
  event: "stream.resync";
  kind: "stream.resync";
  thread_id: string;
  seq: number;
  previous_seq: number;
  snapshot: ThreadDetail;
}

export type ThreadStreamItem = RuntimeEvent | StreamResync;

/** Whether a streamed item is a {@link StreamResync} rather than an event. */
export function isResync(item: ThreadStreamItem): item is StreamResync {
  return item.event === "stream.resync" && "snapshot" in item;
}

const DEFAULT_IDLE_MS = 45_000;

/**
 * The events of `threadId` after `options.sinceSeq`, in order, live, for
 * as long as the caller iterates.
 *
 * Guarantee: every item yielded has a `seq` greater than the one before
 * (so nothing is yielded twice), and each event's `previous_seq` equals
 * the `seq` of the item yielded before it (or `sinceSeq` for the first):
 * no event of the thread is skipped. A dropped connection, a server
 * restart or a stalled socket reconnects with capped, jittered exponential
 * backoff from the last seq yielded. An event whose `previous_seq` shows a
 * gap is not yielded: the stream reopens from the last seq yielded and
 * the replay refills the gap. Only when that replay cannot (its first
 * event still does not follow on) does the stream yield a
 * {@link StreamResync} with a fresh snapshot and go on from the
 * snapshot's `latest_seq`.
 *
 * The iteration ends when `signal` aborts or the caller stops iterating.
 * It throws {@link RuntimeApiError} at once for answers that retrying
 * cannot fix (400, 401, 403, 404 and other 4xx; a 409 is a
 * {@link StreamCursorError}: the cursor, given or resumed, is ahead of
 * every event of that server, i.e. from another runtime) and for a request that
 * cannot be built (kind "invalid_request"), {@link StreamProtocolError}
 * for a line or event over `maxEventSize`, and the last error after
 * `reconnect.maxRetries` retries in a row.
 */
export async function* streamEvents(
  client: RuntimeClient,
  threadId: string,
  options: EventsOptions = {},
): AsyncGenerator<ThreadStreamItem, void, undefined> {
  const user = options.signal;
  if (user?.aborted) return;
  const initialDelay = options.reconnect?.initialDelayMs ?? 250;
  const maxDelay = options.reconnect?.maxDelayMs ?? 10_000;
  const maxRetries = options.reconnect?.maxRetries ?? Infinity;
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_MS;
  const path = `/v1/threads/${encodeURIComponent(threadId)}/events`;

  let cursor = Math.max(0, Math.trunc(options.sinceSeq ?? 0));
  /** The open connection was opened to refill a gap after `cursor`. */
  let refilling = false;
  /** The replay could not refill a gap: read the snapshot next. */
  let needSnapshot = false;
  /** Consecutive failures with nothing delivered. */
  let failures = 0;
  let serverDelay: number | undefined;

  const backoff = async (reason: ReconnectInfo["reason"], error?: unknown): Promise<boolean> => {
    failures += 1;
    if (failures > maxRetries) {
      throw error ?? new RuntimeApiError({ status: 0, message: "event stream: gave up reconnecting", method: "GET", path });
    }
    // The server's `retry:` may raise the base delay, never lower it below
    // ours (`retry: 0` would otherwise turn backoff into a busy loop).
    const first = Math.max(initialDelay, serverDelay ?? initialDelay);
    const base = Math.min(Math.max(maxDelay, initialDelay), first * 2 ** (failures - 1));
    const delayMs = Math.round(base / 2 + Math.random() * (base / 2));
    options.onReconnect?.({ reason, sinceSeq: cursor, attempt: failures, delayMs, error });
    return sleep(delayMs, user);
  };

  // The capability check reads /v1/runtime/info: a server that is not up
  // yet is waited for like a dropped stream.
  for (;;) {
    try {
      await client.requireCapability("event_replay", "events", user ? { signal: user } : {});
      failures = 0;
      break;
    } catch (error) {
      if (user?.aborted) return;
      if (!(error instanceof RuntimeApiError && error.retryable)) throw error;
      if (!(await backoff("error", error))) return;
    }
  }

  while (!user?.aborted) {
    if (needSnapshot) {
      let detail: ThreadDetail;
      try {
        detail = await client.getThread(threadId, user ? { signal: user } : {});
      } catch (error) {
        if (user?.aborted) return;
        if (error instanceof RuntimeApiError && !error.retryable) throw error;
        if (!(await backoff("snapshot", error))) return;
        continue;
      }
      needSnapshot = false;
      refilling = false;
      if (detail.latest_seq > cursor) {
        const resync: StreamResync = {
          event: "stream.resync",
          kind: "stream.resync",
          thread_id: threadId,
          seq: detail.latest_seq,
          previous_seq: cursor,
          snapshot: detail,
        };
        cursor = detail.latest_seq;
        failures = 0;
        yield resync;
        continue;
      }
      // Nothing newer than what was delivered: try the stream again, later.
      if (!(await backoff("snapshot"))) return;
      continue;
    }

    const connection = new AbortController();
    const forward = () => connection.abort(user?.reason);
    user?.addEventListener("abort", forward, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    let outcome: "gap" | "gone" | "ended" | "error" = "ended";
    let failure: unknown;
    let fatal: unknown;
    try {
      let response: Response;
      try {
        response = await client.send("GET", path, {
          query: { since_seq: cursor },
          headers: { Accept: "text/event-stream" },
          signal: connection.signal,
        });
      } catch (error) {
        // A request that cannot be built (a bad header value) fails the same way every time.
        if (!(error instanceof RuntimeApiError && error.retryable)) fatal = error;
        throw error;
      }
      if (!response.ok) {
        let error = await errorFromResponse(response, "GET", path);
        if (response.status === 409) error = new StreamCursorError(error, cursor);
        if (!error.retryable) fatal = error;
        throw error;
      } else if (!response.body) {
        throw new RuntimeApiError({ status: response.status, kind: "other", message: "event stream without a body", method: "GET", path });
      } else {
        const reader = response.body.getReader();
        // The parser drops the stream's one BOM itself; the decoder must not drop another.
        const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
        const parser = new SseParser(options.maxEventSize === undefined ? {} : { maxEventSize: options.maxEventSize });
        let stalled = false;
        read: for (;;) {
          if (idleMs > 0) {
            idle = setTimeout(() => {
              stalled = true;
              connection.abort(new Error("event stream idle"));
            }, idleMs);
          }
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch (error) {
            if (stalled) throw new RuntimeApiError({ status: 0, message: `GET ${path}: no data for ${idleMs} ms`, method: "GET", path });
            throw new RuntimeApiError({ status: 0, message: `GET ${path}: the stream broke`, method: "GET", path, cause: client.sanitizeError(error) });
          } finally {
            clearTimeout(idle);
          }
          if (chunk.done) break;
          let messages;
          try {
            messages = parser.push(decoder.decode(chunk.value, { stream: true }));
          } catch (error) {
            if (error instanceof StreamProtocolError) fatal = error; // the same server would send it again
            throw error;
          }
          if (parser.retry !== undefined) serverDelay = parser.retry;
          for (const message of messages) {
            const event = parseEnvelope(message.data);
            if (!event) continue; // not an event envelope: nothing to deliver
            if (event.seq <= cursor) continue; // already delivered (a replay overlap)
            if (event.previous_seq !== cursor) {
              outcome = refilling ? "gone" : "gap";
              break read;
            }
            refilling = false;
            failures = 0;
            cursor = event.seq;
            yield event;
            if (user?.aborted) return;
          }
        }
      }
    } catch (error) {
      if (user?.aborted) return;
      if (error === fatal) throw error;
      outcome = "error";
      failure = error;
    } finally {
      clearTimeout(idle);
      user?.removeEventListener("abort", forward);
      connection.abort();
    }

    if (user?.aborted) return;
    switch (outcome) {
      case "gap":
        // Reopen at once from the last delivered seq: the replay refills it.
        refilling = true;
        options.onReconnect?.({ reason: "gap", sinceSeq: cursor, attempt: 0, delayMs: 0 });
        break;
      case "gone":
        needSnapshot = true;
        break;
      case "ended":
        if (!(await backoff("ended"))) return;
        break;
      case "error":
        if (!(await backoff("error", failure))) return;
        break;
    }
  }
}

function parseEnvelope(data: string): RuntimeEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  const event = value as RuntimeEvent | null;
  if (!event || typeof event !== "object") return undefined;
  if (!Number.isSafeInteger(event.seq) || !Number.isSafeInteger(event.previous_seq)) return undefined;
  if (typeof event.event !== "string") return undefined;
  return event;
}

/** Waits `ms`; false when `signal` aborted first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
      resolve(true);
    };
    const abort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", abort, { once: true });
  });
}
