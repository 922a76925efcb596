// The client against a scripted fetch: errors, capability checks, and the
// event stream's reconnection, duplicate and gap rules, deterministically.

import { test } from "node:test";
import assert from "node:assert/strict";
import { CapabilityError, createRuntimeClient, isResync, RuntimeApiError } from "../dist/index.js";
import { envelope, fakeFetch, INFO, json, sse } from "./support/fake.mjs";

const EVENTS = "/v1/threads/thr_1/events";
const fast = { initialDelayMs: 1, maxDelayMs: 8 };

function client(fetch, extra = {}) {
  return createRuntimeClient({ baseUrl: "http://runtime.test/v1/", token: "secret-token-0123456789", fetch, ...extra });
}

/** Iterates until `count` items arrived, then stops the iteration. */
async function take(iterable, count) {
  const items = [];
  for await (const item of iterable) {
    items.push(item);
    if (items.length === count) break;
  }
  return items;
}

test("requests carry the bearer token and JSON; error bodies become RuntimeApiError", async () => {
  const fetch = fakeFetch((request) => {
    if (request.path === "/v1/threads" && request.method === "POST") {
      return json(400, { error: { message: "mode must be one of agent, plan, yolo (got \"x\")", status: 400 } });
    }
    if (request.path === "/v1/threads/thr_gone") return new Response("upstream exploded", { status: 502 });
    return json(200, []);
  });
  const c = client(fetch);
  assert.deepEqual(await c.listThreads({ limit: 5, search: undefined }), []);
  const list = fetch.to("/v1/threads")[0];
  assert.equal(list.headers.get("authorization"), "Bearer secret-token-0123456789");
  assert.equal(list.query.limit, "5");
  assert.equal("search" in list.query, false);

  const invalid = await c.createThread({ mode: "x" }).catch((e) => e);
  assert.ok(invalid instanceof RuntimeApiError);
  assert.equal(invalid.status, 400);
  assert.equal(invalid.kind, "invalid");
  assert.equal(invalid.message, 'mode must be one of agent, plan, yolo (got "x")');
  assert.equal(invalid.method, "POST");
  assert.equal(invalid.path, "/v1/threads");
  assert.deepEqual(fetch.to("/v1/threads").at(-1).body, { mode: "x" });
  assert.equal(fetch.to("/v1/threads").at(-1).headers.get("content-type"), "application/json");

  const proxy = await c.getThread("thr_gone").catch((e) => e);
  assert.equal(proxy.status, 502);
  assert.equal(proxy.kind, "other");
  assert.match(proxy.message, /HTTP 502: upstream exploded/);
  assert.equal(proxy.retryable, true);
});

test("a server that cannot be reached is a RuntimeApiError with status 0, kind unreachable", async () => {
  const c = createRuntimeClient({ baseUrl: "http://127.0.0.1:1", token: "t".repeat(20) });
  const error = await c.health().catch((e) => e);
  assert.ok(error instanceof RuntimeApiError);
  assert.equal(error.status, 0);
  assert.equal(error.kind, "unreachable");
  assert.ok(error.cause);
});

test("an unadvertised capability throws CapabilityError before any request; info is read once", async () => {
  const info = structuredClone(INFO);
  info.capabilities.turn_steer = false;
  delete info.capabilities.usage; // an older server: the flag is missing
  const fetch = fakeFetch(() => json(200, { id: "turn_1" }), { info });
  const c = client(fetch);
  const steer = await c.steerTurn("thr_1", "turn_1", "more").catch((e) => e);
  assert.ok(steer instanceof CapabilityError);
  assert.equal(steer.capability, "turn_steer");
  assert.equal(steer.operation, "steerTurn");
  const usage = await c.usage().catch((e) => e);
  assert.ok(usage instanceof CapabilityError);
  assert.equal(usage.capability, "usage");
  const pairing = await c.createPairing().catch((e) => e);
  assert.equal(pairing.capability, "mobile");
  // What is advertised still works, and nothing unadvertised was sent.
  await c.interruptTurn("thr_1", "turn_1");
  assert.deepEqual(
    fetch.calls.map((r) => r.path),
    ["/v1/runtime/info", "/v1/threads/thr_1/turns/turn_1/interrupt"],
  );
  // Without the check the request goes out (and the server decides).
  const unchecked = client(fakeFetch(() => json(200, { id: "turn_1" }), { info }), { checkCapabilities: false });
  assert.deepEqual(await unchecked.steerTurn("thr_1", "turn_1", "more"), { id: "turn_1" });
});

test("a stream refused with 401, 403 or 404 throws at once and is not retried", async () => {
  for (const status of [401, 403, 404]) {
    const fetch = fakeFetch(() => json(status, { error: { message: `refused ${status}`, status } }));
    const error = await take(client(fetch).events("thr_1", { reconnect: fast }), 1).catch((e) => e);
    assert.ok(error instanceof RuntimeApiError, String(error));
    assert.equal(error.status, status);
    assert.equal(error.message, `refused ${status}`);
    assert.equal(fetch.to(EVENTS).length, 1, `${status} was retried`);
  }
});

test("dropped connections and 5xx reconnect with growing delays from the last delivered seq; overlaps are dropped", async () => {
  const script = [
    () => sse([envelope(1, 0), envelope(2, 1)], { end: "error" }),
    () => {
      throw new TypeError("fetch failed");
    },
    () => json(503, { error: { message: "busy", status: 503 } }),
    () => sse([envelope(3, 2)], { end: "close" }), // the server ended the stream
    // A replay that overlaps what was delivered (seq 2, 3 again): dropped.
    (request) => sse([envelope(2, 1), envelope(3, 2), envelope(5, 3)], { end: "hang", signal: request.signal }),
  ];
  const fetch = fakeFetch((request) => {
    const step = script.shift();
    return step ? step(request) : sse([], { end: "hang", signal: request.signal });
  });
  const reconnects = [];
  const items = await take(
    client(fetch).events("thr_1", {
      reconnect: { initialDelayMs: 4, maxDelayMs: 16 },
      onReconnect: (info) => reconnects.push(info),
    }),
    4,
  );
  assert.deepEqual(items.map((e) => e.seq), [1, 2, 3, 5]);
  assert.deepEqual(fetch.to(EVENTS).map((r) => r.query.since_seq), ["0", "2", "2", "2", "3"]);
  assert.deepEqual(reconnects.map((r) => [r.reason, r.attempt, r.sinceSeq]), [
    ["error", 1, 2],
    ["error", 2, 2],
    ["error", 3, 2],
    ["ended", 1, 3],
  ]);
  // Jittered within [base/2, base], base doubling from 4 and capped at 16.
  const bases = [4, 8, 16, 4];
  reconnects.forEach((r, i) => assert.ok(r.delayMs >= bases[i] / 2 && r.delayMs <= bases[i], `${r.delayMs} vs ${bases[i]}`));
  assert.ok(reconnects[2].error instanceof RuntimeApiError && reconnects[2].error.status === 503);
});

test("after maxRetries failures in a row the stream throws the last error", async () => {
  const fetch = fakeFetch(() => json(500, { error: { message: "internal error", status: 500 } }));
  const error = await take(client(fetch).events("thr_1", { reconnect: { ...fast, maxRetries: 2 } }), 1).catch((e) => e);
  assert.ok(error instanceof RuntimeApiError);
  assert.equal(error.status, 500);
  assert.equal(fetch.to(EVENTS).length, 3);
});

test("a previous_seq gap is refilled from the replay before anything after it is delivered", async () => {
  const script = [
    // seq 2 went missing on the way: 3 says it follows 2.
    (request) => sse([envelope(1, 0), envelope(3, 2), envelope(4, 3)], { end: "hang", signal: request.signal }),
    (request) => sse([envelope(2, 1), envelope(3, 2), envelope(4, 3)], { end: "hang", signal: request.signal }),
  ];
  const fetch = fakeFetch((request) => (script.shift() ?? (() => sse([], { end: "hang", signal: request.signal })))(request));
  const reconnects = [];
  const items = await take(client(fetch).events("thr_1", { onReconnect: (r) => reconnects.push(r) }), 4);
  assert.deepEqual(items.map((e) => [e.seq, e.previous_seq]), [[1, 0], [2, 1], [3, 2], [4, 3]]);
  assert.deepEqual(fetch.to(EVENTS).map((r) => r.query.since_seq), ["0", "1"]);
  assert.deepEqual(reconnects.map((r) => [r.reason, r.sinceSeq, r.delayMs]), [["gap", 1, 0]]);
});

test("when the replay cannot refill a gap, the snapshot is yielded and streaming goes on after it", async () => {
  const detail = {
    thread: { id: "thr_1" },
    turns: [],
    items: [],
    latest_seq: 9,
    pending_approvals: [],
    pending_user_inputs: [],
    pending_dynamic_tool_calls: [],
  };
  for (const refusal of ["replay-gap"]) {
    const script = [
      (request) => sse([envelope(1, 0), envelope(7, 6)], { end: "hang", signal: request.signal }),
      refusal === "410"
        ? () => json(410, { error: { message: "replay window gone", status: 410 } })
        : (request) => sse([envelope(7, 6)], { end: "hang", signal: request.signal }), // still does not follow 1
      (request) => sse([envelope(10, 9)], { end: "hang", signal: request.signal }),
    ];
    const fetch = fakeFetch((request) => {
      if (request.path === "/v1/threads/thr_1") return json(200, detail);
      return (script.shift() ?? (() => sse([], { end: "hang", signal: request.signal })))(request);
    });
    const items = await take(client(fetch).events("thr_1", { reconnect: fast }), 3);
    assert.deepEqual(items.map((e) => [e.event, e.seq, e.previous_seq]), [
      ["item.delta", 1, 0],
      ["stream.resync", 9, 1],
      ["item.delta", 10, 9],
    ], refusal);
    assert.ok(isResync(items[1]));
    assert.deepEqual(items[1].snapshot, detail);
    assert.deepEqual(fetch.to(EVENTS).map((r) => r.query.since_seq), ["0", "1", "9"], refusal);
  }
});

test("a silent connection is dropped after idleTimeoutMs and reopened; heartbeats keep it alive", async () => {
  let opened = 0;
  const fetch = fakeFetch((request) => {
    opened += 1;
    if (opened === 1) return sse([envelope(1, 0)], { end: "hang", signal: request.signal }); // then silence
    return sse([": heartbeat\n\n", envelope(2, 1)], { end: "hang", signal: request.signal });
  });
  const reconnects = [];
  const items = await take(
    client(fetch).events("thr_1", { idleTimeoutMs: 50, reconnect: fast, onReconnect: (r) => reconnects.push(r) }),
    2,
  );
  assert.deepEqual(items.map((e) => e.seq), [1, 2]);
  assert.equal(reconnects.length, 1);
  assert.match(reconnects[0].error.message, /no data for 50 ms/);
});

test("aborting the signal ends the iteration quietly and closes the connection", async () => {
  const controller = new AbortController();
  const fetch = fakeFetch((request) => sse([envelope(1, 0)], { end: "hang", signal: request.signal }));
  const seen = [];
  for await (const item of client(fetch).events("thr_1", { signal: controller.signal })) {
    seen.push(item.seq);
    setTimeout(() => controller.abort(), 5);
  }
  assert.deepEqual(seen, [1]);
  assert.equal(fetch.to(EVENTS)[0].signal.aborted, true);
  assert.equal(fetch.to(EVENTS).length, 1);
});

test("a stream opened before the server is up waits for it (the capability check retries too)", async () => {
  const inner = fakeFetch((request) => sse([envelope(1, 0)], { end: "hang", signal: request.signal }));
  let refused = 0;
  const fetch = async (input, init) => {
    if (refused < 2) {
      refused += 1;
      throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    }
    return inner(input, init);
  };
  const reconnects = [];
  const items = await take(client(fetch).events("thr_1", { reconnect: fast, onReconnect: (r) => reconnects.push(r) }), 1);
  assert.deepEqual(items.map((e) => e.seq), [1]);
  assert.equal(refused, 2);
  assert.deepEqual(reconnects.map((r) => [r.reason, r.attempt]), [["error", 1], ["error", 2]]);
  assert.equal(reconnects[0].error.kind, "unreachable");
  assert.deepEqual(inner.calls.map((c) => c.path), ["/v1/runtime/info", EVENTS]);
});

test("a browser-style fetch that needs a plain call (no `this`) works, for calls and streams", async () => {
  const inner = fakeFetch((request) =>
    request.path === EVENTS
      ? sse([envelope(1, 0)], { end: "hang", signal: request.signal })
      : json(200, { status: "ok", service: "codewhale-runtime-api", mode: "local" }),
  );
  function strictFetch(input, init) {
    "use strict";
    if (this !== undefined) throw new TypeError("Illegal invocation");
    return inner(input, init);
  }
  const c = client(strictFetch);
  assert.equal((await c.health()).status, "ok");
  const items = await take(c.events("thr_1"), 1);
  assert.equal(items[0].seq, 1);
});

test("one caller's abort fails only that caller: the shared runtime info read goes on for the others", async () => {
  let infoReads = 0;
  let releaseInfo;
  const gate = new Promise((resolve) => (releaseInfo = resolve));
  const base = fakeFetch(() => json(200, []));
  const fetch = async (input, init = {}) => {
    if (String(input).endsWith("/v1/runtime/info")) {
      infoReads += 1;
      if (init.signal) throw new Error("the shared info read must not carry a caller's signal");
      await gate;
    }
    return base(input, init);
  };
  const c = client(fetch);
  const a = new AbortController();
  const first = c.listThreads({}, { signal: a.signal }).then(() => "ok", (e) => e);
  const second = c.listThreads({}).then(() => "ok", (e) => e);
  a.abort(new Error("caller A gave up"));
  assert.equal((await first).message, "caller A gave up");
  releaseInfo();
  assert.equal(await second, "ok");
  assert.equal(infoReads, 1);
});

test("a failed runtime info read is not cached: the next call reads it again", async () => {
  let infoReads = 0;
  const base = fakeFetch(() => json(200, []));
  const fetch = async (input, init = {}) => {
    if (String(input).endsWith("/v1/runtime/info") && ++infoReads === 1) return json(500, { error: { message: "boom", status: 500 } });
    return base(input, init);
  };
  const c = client(fetch);
  assert.equal((await c.listThreads().catch((e) => e)).status, 500);
  assert.deepEqual(await c.listThreads(), []);
  assert.equal(infoReads, 2);
});

test("a server's `retry: 0` does not remove the backoff: delays never go below initialDelayMs", async () => {
  const fetch = fakeFetch(() => sse(["retry: 0\n\n"], { end: "close" }));
  const delays = [];
  const error = await take(
    client(fetch).events("thr_1", {
      reconnect: { initialDelayMs: 20, maxDelayMs: 100, maxRetries: 4 },
      onReconnect: (info) => delays.push(info.delayMs),
    }),
    1,
  ).catch((e) => e);
  assert.ok(error instanceof RuntimeApiError);
  assert.equal(delays.length, 4);
  // Jitter keeps each delay in [base/2, base]: the first base is at least 20 ms.
  for (const [i, delay] of delays.entries()) assert.ok(delay >= Math.min(100, 20 * 2 ** i) / 2, `delay ${i} was ${delay}`);
});

test("an event stream line over maxEventSize is a fatal StreamProtocolError, not retried", async () => {
  const { StreamProtocolError } = await import("../dist/index.js");
  const fetch = fakeFetch((request) => sse(["data: " + "x".repeat(500)], { end: "hang", signal: request.signal }));
  const reconnects = [];
  const error = await take(
    client(fetch).events("thr_1", { maxEventSize: 256, reconnect: fast, onReconnect: (i) => reconnects.push(i) }),
    1,
  ).catch((e) => e);
  assert.ok(error instanceof StreamProtocolError, String(error));
  assert.equal(reconnects.length, 0);
  assert.equal(fetch.to(EVENTS).length, 1);
});

test("the stream drops one BOM only (the decoder keeps it for the parser), and an unterminated last event is not delivered", async () => {
  const bom = "\uFEFF";
  const first = `${bom}${bom}data: ${JSON.stringify(envelope(5, 0))}\n\n`; // a second BOM: not a data line
  const rest = `data: ${JSON.stringify(envelope(1, 0))}\n\ndata: ${JSON.stringify(envelope(2, 1))}\n`; // 2 never ends
  let opened = 0;
  const fetch = fakeFetch((request) => (opened++ === 0 ? sse([first, rest], { end: "close" }) : sse([], { end: "hang", signal: request.signal })));
  const ac = new AbortController();
  const items = [];
  for await (const item of client(fetch).events("thr_1", { signal: ac.signal, reconnect: fast })) {
    items.push(item);
    setTimeout(() => ac.abort(), 50);
  }
  assert.deepEqual(items.map((i) => i.seq), [1]);
});

test("an error body's `kind` is ignored: the kind comes from the status", async () => {
  const fetch = fakeFetch(() => json(400, { error: { message: "bad", status: 400, kind: "unreachable" } }));
  const error = await client(fetch).listThreads().catch((e) => e);
  assert.equal(error.kind, "invalid");
  assert.equal(error.retryable, false);
});

test("a 409 for a cursor from another runtime throws StreamCursorError at once (first connect or resume)", async () => {
  const { StreamCursorError } = await import("../dist/index.js");
  const refuse = () => json(409, { error: { message: "since_seq 50 is ahead of this server's newest event (3): reload the thread and resume from its latest_seq", status: 409 } });
  // Given by the caller.
  let fetch = fakeFetch(refuse);
  let error = await take(client(fetch).events("thr_1", { sinceSeq: 50, reconnect: fast }), 1).catch((e) => e);
  assert.ok(error instanceof StreamCursorError, String(error));
  assert.ok(error instanceof RuntimeApiError);
  assert.equal(error.status, 409);
  assert.equal(error.sinceSeq, 50);
  assert.equal(fetch.to(EVENTS).length, 1);
  // Resumed after a restart onto another store.
  const script = [(request) => sse([envelope(1, 0)], { end: "close" }), refuse];
  fetch = fakeFetch((request) => (script.shift() ?? refuse)(request));
  const items = [];
  error = await (async () => {
    for await (const item of client(fetch).events("thr_1", { reconnect: fast })) items.push(item);
  })().catch((e) => e);
  assert.deepEqual(items.map((i) => i.seq), [1]);
  assert.ok(error instanceof StreamCursorError, String(error));
  assert.equal(error.sinceSeq, 1);
});

test("the workspace views send their path and workspace as a query", async () => {
  const fetch = fakeFetch((request) => {
    if (request.path === "/v1/threads/thr_1/workspace/file") {
      return json(403, { error: { message: "../x: outside the workspace", status: 403 } });
    }
    return json(200, { files: [], truncated: false });
  });
  const c = client(fetch);
  await c.browseThreadWorkspace("thr_1", "src");
  assert.equal(fetch.to("/v1/threads/thr_1/workspace/browse")[0].query.path, "src");
  await c.browseThreadWorkspace("thr_1");
  assert.equal("path" in fetch.to("/v1/threads/thr_1/workspace/browse")[1].query, false);
  const refused = await c.readThreadWorkspaceFile("thr_1", "../x").catch((e) => e);
  assert.ok(refused instanceof RuntimeApiError);
  assert.equal(refused.status, 403);
  assert.equal(refused.kind, "forbidden");
  assert.deepEqual(await c.threadWorkspaceDiff("thr_1"), { files: [], truncated: false });
  await c.browseWorkspace("/repo", "docs");
  assert.deepEqual(fetch.to("/v1/workspace/browse")[0].query, { workspace: "/repo", path: "docs" });
  await c.workspaceStatus();
  assert.deepEqual(fetch.to("/v1/workspace/status")[0].query, {});
  await c.readWorkspaceFile("/repo", "a b.txt");
  assert.equal(fetch.to("/v1/workspace/file")[0].query.path, "a b.txt");
});
