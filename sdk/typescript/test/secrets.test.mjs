// The token never shows in an error: not in its message, String(), inspect
// (causes included) or JSON; a request that cannot be built is not retried.

import { test } from "node:test";
import assert from "node:assert/strict";
import util from "node:util";
import { createRuntimeClient, RuntimeApiError } from "../dist/index.js";
import { fakeFetch, json } from "./support/fake.mjs";

const TOKEN = "tok-SECRET-0123456789abcdef";

function assertClean(error, secret = TOKEN) {
  assert.ok(error, "expected an error");
  for (const text of [error.message ?? "", String(error), util.inspect(error, { depth: 10 }), JSON.stringify(error) ?? ""]) {
    assert.equal(text.includes(secret), false, `the secret leaked: ${text}`);
  }
}

test("a token a header cannot carry is refused up front, without repeating it", () => {
  for (const bad of ["SECRET\nTOKEN", "SECRET\0TOKEN", "SECRET\rTOKEN", " SECRETTOKEN", "SECRET\u2028TOKEN", ""]) {
    let error;
    try {
      createRuntimeClient({ baseUrl: "http://127.0.0.1:9", token: bad });
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof TypeError, JSON.stringify(bad));
    if (bad.length > 0) assertClean(error, bad.trim());
  }
});

test("a baseUrl with credentials or without an http(s) scheme is refused, without repeating it", () => {
  for (const bad of ["http://user:pa55w0rd-XYZ@127.0.0.1:7878", "127.0.0.1:7878", "localhost:7878", "ftp://host/", "not a url pa55w0rd-XYZ"]) {
    let error;
    try {
      createRuntimeClient({ baseUrl: bad, token: "t" });
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof TypeError, bad);
    assertClean(error, "pa55w0rd-XYZ");
  }
  assert.equal(createRuntimeClient({ baseUrl: "https://h.test/v1/" }).baseUrl, "https://h.test");
});

test("a fetch failure that quotes the token is reported without it (message, cause, inspect, JSON)", async () => {
  const fetch = async () => {
    const cause = new Error(`connect failed for Bearer ${TOKEN}`);
    cause.code = "ECONNREFUSED";
    throw new TypeError(`fetch failed: header value Bearer ${TOKEN}`, { cause });
  };
  const c = createRuntimeClient({ baseUrl: "http://runtime.test", token: TOKEN, fetch, checkCapabilities: false });
  const error = await c.listThreads().catch((e) => e);
  assert.ok(error instanceof RuntimeApiError);
  assert.equal(error.kind, "unreachable");
  assert.match(error.message, /ECONNREFUSED/);
  assertClean(error);
  // The stream's errors, as onReconnect sees them, are clean too.
  const seen = [];
  const ac = new AbortController();
  const stream = c.events("thr_1", {
    signal: ac.signal,
    reconnect: { initialDelayMs: 1, maxDelayMs: 2, maxRetries: 2 },
    onReconnect: (info) => seen.push(info.error),
  });
  const thrown = await (async () => {
    for await (const _ of stream);
  })().catch((e) => e);
  assertClean(thrown);
  assert.ok(seen.length > 0);
  for (const e of seen) assertClean(e);
});

test("the real fetch's invalid-header error is not retried and does not leak (extra header with a newline)", async () => {
  const c = createRuntimeClient({
    baseUrl: "http://127.0.0.1:9",
    token: TOKEN,
    headers: { "X-Api-Key": `${TOKEN}\nmore` },
    checkCapabilities: false,
  });
  const error = await c.listThreads().catch((e) => e);
  assert.ok(error instanceof RuntimeApiError);
  assert.equal(error.kind, "invalid_request");
  assert.equal(error.retryable, false);
  assertClean(error);
  let reconnects = 0;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 2000);
  const thrown = await (async () => {
    for await (const _ of c.events("thr_1", { signal: ac.signal, reconnect: { initialDelayMs: 1, maxDelayMs: 2 }, onReconnect: () => reconnects++ }));
  })().catch((e) => e);
  clearTimeout(timer);
  assert.ok(thrown instanceof RuntimeApiError, "the stream must throw, not retry forever");
  assert.equal(reconnects, 0);
  assertClean(thrown);
});

test("a tool handler's error that quotes the token reaches the model without it", async () => {
  const posted = [];
  const fetch = fakeFetch((request) => {
    if (request.path === "/v1/threads/thr_1") {
      return json(200, {
        thread: { id: "thr_1" }, turns: [], items: [], latest_seq: 0, pending_approvals: [], pending_user_inputs: [],
        pending_dynamic_tool_calls: [{ id: "call_1", thread_id: "thr_1", turn_id: "turn_1", call_id: "call_1", tool: "deploy", namespace: null, arguments: {} }],
      });
    }
    if (request.path.endsWith("/result")) {
      posted.push(request.body);
      return json(202, { accepted: true, call_id: "call_1" });
    }
    return new Promise((_, reject) => request.signal?.addEventListener("abort", () => reject(request.signal.reason)));
  });
  const c = createRuntimeClient({ baseUrl: "http://runtime.test", token: TOKEN, fetch });
  const outcome = new Promise((resolve) => {
    const reg = c.registerTool("thr_1", {
      name: "deploy",
      handler: () => {
        throw new Error(`request with Authorization: Bearer ${TOKEN} failed`);
      },
    }, { onCall: (_call, o) => { resolve(o); reg.stop(); } });
  });
  assert.equal(await outcome, "answered");
  assert.equal(posted.length, 1);
  assert.equal(posted[0].success, false);
  assert.equal(JSON.stringify(posted[0]).includes(TOKEN), false, JSON.stringify(posted[0]));
  assert.match(posted[0].content[0].text, /\[redacted\]/);
});
