import { errorFromResponse, RuntimeApiError, StreamCursorError } from "./errors.js";
import { SseParser } from "./sse.js";
import type { RuntimeClient } from "./client.js";
import type { FleetEvent } from "./types.js";

export interface FleetEventsOptions {
  /** Deliver events after this seq (exclusive); 0 (the default) replays the run's log. */
  sinceSeq?: number;
  /** Ends the iteration (quietly) when aborted. */
  signal?: AbortSignal;
  /** Delay before reopening a dropped connection, in ms (default 500). */
  retryDelayMs?: number;
  /** Reopenings in a row with nothing delivered before giving up (default 10). */
  maxRetries?: number;
}

/**
 * A fleet run's events (`GET /v1/fleet/runs/{run_id}/events`), replayed
 * from `sinceSeq` and then live. A dropped connection is reopened after
 * the last delivered seq, so nothing is lost or repeated. Ends when the
 * signal aborts; throws a {@link StreamCursorError} for a cursor from
 * another runtime and the request's error for anything not retryable.
 */
export async function* fleetEvents(
  client: RuntimeClient,
  runId: string,
  options: FleetEventsOptions = {},
): AsyncGenerator<FleetEvent, void, undefined> {
  const user = options.signal;
  const path = `/v1/fleet/runs/${encodeURIComponent(runId)}/events`;
  const delay = options.retryDelayMs ?? 500;
  const maxRetries = options.maxRetries ?? 10;
  let cursor = Math.max(0, Math.trunc(options.sinceSeq ?? 0));
  let failures = 0;
  await client.requireCapability("fleet", "fleetEvents", user ? { signal: user } : {});
  while (!user?.aborted) {
    const connection = new AbortController();
    let fatal: unknown;
    const forward = () => connection.abort(user?.reason);
    user?.addEventListener("abort", forward, { once: true });
    try {
      const response = await client.send("GET", path, {
        query: { since_seq: cursor },
        headers: { Accept: "text/event-stream" },
        signal: connection.signal,
      });
      if (!response.ok) {
        let error = await errorFromResponse(response, "GET", path);
        if (response.status === 409) error = new StreamCursorError(error, cursor);
        if (!error.retryable) fatal = error;
        throw error;
      }
      if (!response.body) throw new RuntimeApiError({ status: response.status, kind: "other", message: "event stream without a body", method: "GET", path });
      const reader = response.body.getReader();
      const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
      const parser = new SseParser();
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        for (const message of parser.push(decoder.decode(chunk.value, { stream: true }))) {
          let event: FleetEvent;
          try {
            event = JSON.parse(message.data) as FleetEvent;
          } catch {
            continue;
          }
          if (typeof event?.seq !== "number" || event.seq <= cursor) continue;
          cursor = event.seq;
          failures = 0;
          yield event;
          if (user?.aborted) return;
        }
      }
    } catch (error) {
      if (user?.aborted) return;
      if (error === fatal || (error instanceof RuntimeApiError && !error.retryable)) throw error;
      failures += 1;
      if (failures > maxRetries) throw error;
    } finally {
      user?.removeEventListener("abort", forward);
      connection.abort();
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
