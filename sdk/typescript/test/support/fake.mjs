// A scripted stand-in for the server, as a fetch: each request is answered
// by the next step of a script, so reconnection logic can be tested
// deterministically.

export const INFO = {
  service: "codewhale-runtime-api",
  runtime_api_version: "1.0",
  codewhale_version: "0.0.0-test",
  version: "0.0.0-test",
  bind_host: "127.0.0.1",
  port: 1,
  auth_required: true,
  transports: ["http", "sse"],
  capabilities: {
    web_client: true,
    web_bootstrap: true,
    threads: true,
    turns: true,
    turn_steer: true,
    turn_interrupt: true,
    event_replay: true,
    approvals: true,
    user_input: true,
    external_tools: true,
    usage: true,
    mobile: false,
    environments: false,
    worker_runtime: false,
  },
};

export function json(status, body) {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

/** An event envelope as the server writes it. */
export function envelope(seq, previousSeq, event = "item.delta", payload = { delta: `d${seq}`, kind: "agent_message" }) {
  return {
    schema_version: 1,
    seq,
    previous_seq: previousSeq,
    event,
    kind: event,
    thread_id: "thr_1",
    turn_id: "turn_1",
    item_id: "item_1",
    timestamp: "2026-01-01T00:00:00.000Z",
    created_at: "2026-01-01T00:00:00.000Z",
    payload,
  };
}

/**
 * An SSE response of `events` (envelopes or raw strings). `end`:
 * "close" ends the body after them, "hang" keeps it open (until the
 * request is aborted), "error" breaks it.
 */
export function sse(events, { end = "close", signal } = {}) {
  const encoder = new TextEncoder();
  const chunks = events.map((e) =>
    encoder.encode(typeof e === "string" ? e : `id: ${e.seq}\nevent: ${e.event}\ndata: ${JSON.stringify(e)}\n\n`),
  );
  // Pulled one chunk at a time, so that every chunk is read before the end
  // (erroring a stream drops what is still queued).
  const body = new ReadableStream({
    pull(controller) {
      const chunk = chunks.shift();
      if (chunk) return controller.enqueue(chunk);
      if (end === "close") return controller.close();
      if (end === "error") return controller.error(new TypeError("terminated"));
      // "hang": nothing more until the request is aborted.
      return new Promise((resolve) => {
        if (!signal) return;
        const abort = () => {
          controller.error(signal.reason ?? new DOMException("aborted", "AbortError"));
          resolve();
        };
        if (signal.aborted) abort();
        else signal.addEventListener("abort", abort, { once: true });
      });
    },
  });
  return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
}

/**
 * A fetch answering `/v1/runtime/info` with `info` and every other request
 * with `route(request)` (`{ method, url, path, query, headers, body,
 * signal }`), which returns a Response or throws. `calls` records them.
 */
export function fakeFetch(route, { info = INFO } = {}) {
  const calls = [];
  const f = async (input, init = {}) => {
    const url = new URL(typeof input === "string" ? input : input.url);
    const request = {
      method: (init.method ?? "GET").toUpperCase(),
      url: url.href,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: new Headers(init.headers),
      body: init.body === undefined ? undefined : JSON.parse(init.body),
      signal: init.signal,
    };
    calls.push(request);
    if (init.signal?.aborted) throw init.signal.reason;
    if (url.pathname === "/v1/runtime/info") return json(200, info);
    return route(request);
  };
  f.calls = calls;
  f.to = (path) => calls.filter((c) => c.path === path);
  return f;
}
