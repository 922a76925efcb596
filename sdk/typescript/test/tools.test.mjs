// registerTool against a scripted fetch: replays after (re)connecting,
// duplicate registrations, result shapes, lost answers, listeners.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createRuntimeClient } from "../dist/index.js";
import { envelope, fakeFetch, json, sse } from "./support/fake.mjs";

const THREAD = "/v1/threads/thr_1";
const EVENTS = "/v1/threads/thr_1/events";

function detail(latestSeq, pending = []) {
  return { thread: { id: "thr_1" }, turns: [], items: [], latest_seq: latestSeq, pending_approvals: [], pending_user_inputs: [], pending_dynamic_tool_calls: pending };
}
function call(id, tool = "deploy") {
  return { id, thread_id: "thr_1", turn_id: "turn_1", call_id: id, tool, namespace: null, arguments: { n: id } };
}
function settled(id, status, tool = "deploy") {
  return { thread_id: "thr_1", turn_id: "turn_1", call_id: id, tool, namespace: null, status };
}
const hang = (request) => sse([], { end: "hang", signal: request.signal });
const until = async (check, ms = 3000) => {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
};

test("a call requested and settled while the stream was away (in the replay) is never run; a live one after it is", async (t) => {
  const posted = [];
  let snapshots = 0;
  const streams = [
    (request) =>
      sse(
        [envelope(1, 0, "tool_call.requested", call("call_1")), envelope(2, 1, "tool_call.timeout", settled("call_1", "timeout"))],
        { end: "hang", signal: request.signal },
      ),
  ];
  const fetch = fakeFetch((request) => {
    if (request.path === THREAD) return json(200, snapshots++ === 0 ? detail(0) : detail(2));
    if (request.path === EVENTS) return (streams.shift() ?? hang)(request);
    if (request.path.endsWith("/result")) {
      posted.push(request.path);
      return json(202, { accepted: true, call_id: "x" });
    }
    return json(404, { error: { message: "no", status: 404 } });
  });
  const c = createRuntimeClient({ baseUrl: "http://runtime.test", token: "t", fetch });
  const ran = [];
  const reg = c.registerTool("thr_1", { name: "deploy", handler: (args) => (ran.push(args.n), "ok") });
  t.after(() => reg.stop());
  await until(() => reg.calls.get("call_1") !== undefined);
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(ran, []);
  assert.deepEqual(posted, []);
  assert.equal(reg.calls.get("call_1"), "settled");
  reg.stop();
  await reg.done;
});

test("a live call after the replay caught up runs once; a reconnect's replay of a settled call does not run it", async (t) => {
  const posted = [];
  let snapshots = 0;
  const streams = [
    // first connection: a live call (the snapshot read for it says it is pending)
    (request) => sse([envelope(1, 0, "tool_call.requested", call("call_1"))], { end: "close", signal: request.signal }),
    // after the reconnect: call_2 was requested and canceled meanwhile; call_3 is live
    (request) =>
      sse(
        [
          envelope(2, 1, "tool_call.requested", call("call_2")),
          envelope(3, 2, "tool_call.canceled", settled("call_2", "canceled")),
          envelope(4, 3, "tool_call.requested", call("call_3")),
        ],
        { end: "hang", signal: request.signal },
      ),
  ];
  const fetch = fakeFetch((request) => {
    if (request.path === THREAD) {
      snapshots++;
      if (snapshots === 1) return json(200, detail(0));
      if (snapshots === 2) return json(200, detail(1, [call("call_1")]));
      return json(200, detail(3));
    }
    if (request.path === EVENTS) return (streams.shift() ?? hang)(request);
    if (request.path.endsWith("/result")) {
      posted.push(request.path.split("/")[7]);
      return json(202, { accepted: true, call_id: "x" });
    }
    return json(404, { error: { message: "no", status: 404 } });
  });
  const c = createRuntimeClient({ baseUrl: "http://runtime.test", token: "t", fetch });
  const ran = [];
  const reg = c.registerTool(
    "thr_1",
    { name: "deploy", handler: (args) => (ran.push(args.n), "ok") },
    { events: { reconnect: { initialDelayMs: 1, maxDelayMs: 2 } } },
  );
  t.after(() => reg.stop());
  await until(() => reg.calls.get("call_3") === "answered" && reg.calls.get("call_1") === "answered");
  assert.deepEqual(ran.sort(), ["call_1", "call_3"]);
  assert.deepEqual(posted.sort(), ["call_1", "call_3"]);
  assert.equal(reg.calls.get("call_2"), "settled");
  reg.stop();
  await reg.done;
});

function pendingServer({ pending, onPost }) {
  return fakeFetch((request) => {
    if (request.path === THREAD) return json(200, detail(0, pending));
    if (request.path === EVENTS) return hang(request);
    if (request.path.endsWith("/result")) return onPost(request);
    return json(404, { error: { message: "no", status: 404 } });
  });
}

test("a second registration of the same tool on the same client and thread is refused until the first stops", async (t) => {
  const fetch = pendingServer({ pending: [], onPost: () => json(202, {}) });
  const c = createRuntimeClient({ baseUrl: "http://runtime.test", token: "t", fetch });
  const first = c.registerTool("thr_1", { name: "deploy", handler: () => "ok" });
  t.after(() => first.stop());
  assert.throws(() => c.registerTool("thr_1", { name: "deploy", handler: () => "ok" }), /already registered/);
  // Another tool, namespace or thread is fine.
  const other = c.registerTool("thr_1", { name: "deploy", namespace: "ops", handler: () => "ok" });
  other.stop();
  first.stop();
  const again = c.registerTool("thr_1", { name: "deploy", handler: () => "ok" });
  again.stop();
});

test("a handler result of the wrong shape is sent as success:false saying so (and told to onError)", async (t) => {
  const posted = [];
  const fetch = pendingServer({
    pending: [call("call_1"), call("call_2"), call("call_3")],
    onPost: (request) => (posted.push([request.path.split("/")[7], request.body]), json(202, { accepted: true, call_id: "x" })),
  });
  const c = createRuntimeClient({ baseUrl: "http://runtime.test", token: "t", fetch });
  const errors = [];
  const results = {
    call_1: { success: true, content: "just a string" },
    call_2: { success: true, content: [{ type: "input_text", text: "fine", extra: 1 }] },
    call_3: { ok: true },
  };
  const reg = c.registerTool("thr_1", { name: "deploy", handler: (args) => results[args.n] }, { onError: (e) => errors.push(e) });
  t.after(() => reg.stop());
  await until(() => posted.length === 3);
  const body = Object.fromEntries(posted);
  assert.equal(body.call_1.success, false);
  assert.match(body.call_1.content[0].text, /content/);
  assert.deepEqual(body.call_2, { success: true, content: [{ type: "input_text", text: "fine" }] });
  assert.equal(body.call_3.success, false);
  assert.match(body.call_3.content[0].text, /success/);
  assert.equal(errors.length, 2);
});

test("a result whose first POST answer was lost, then 404, is 'answered' when the stream shows it resolved", async (t) => {
  let posts = 0;
  let streamRequest;
  const events = [];
  const fetch = fakeFetch((request) => {
    if (request.path === THREAD) return json(200, detail(0, [call("call_1")]));
    if (request.path === EVENTS) {
      streamRequest = request;
      return sse(events, { end: "hang", signal: request.signal });
    }
    if (request.path.endsWith("/result")) {
      posts += 1;
      if (posts === 1) throw new TypeError("fetch failed"); // reached the server; the answer was lost
      return json(404, { error: { message: "no pending call", status: 404 } });
    }
  });
  // The stream carries the call's resolution once the first POST went out.
  events.push(envelope(1, 0, "tool_call.resolved", settled("call_1", "resolved")));
  const c = createRuntimeClient({ baseUrl: "http://runtime.test", token: "t", fetch });
  const outcomes = [];
  const reg = c.registerTool("thr_1", { name: "deploy", handler: () => "ok" }, { onCall: (_c, o) => outcomes.push(o) });
  t.after(() => reg.stop());
  await until(() => outcomes.length === 1, 5000);
  assert.ok(streamRequest);
  assert.equal(posts, 2);
  assert.deepEqual(outcomes, ["answered"]);
});

test("many concurrent calls add no listener per call to one signal (no MaxListenersExceededWarning)", async (t) => {
  const warnings = [];
  const onWarning = (w) => warnings.push(w);
  process.on("warning", onWarning);
  t.after(() => process.off("warning", onWarning));
  const pending = Array.from({ length: 25 }, (_, i) => call(`call_${i}`));
  let release;
  const gate = new Promise((r) => (release = r));
  let answered = 0;
  const fetch = pendingServer({ pending, onPost: () => (answered++, json(202, { accepted: true, call_id: "x" })) });
  const c = createRuntimeClient({ baseUrl: "http://runtime.test", token: "t", fetch });
  const reg = c.registerTool("thr_1", { name: "deploy", handler: () => gate.then(() => "ok") });
  t.after(() => reg.stop());
  await reg.ready;
  await new Promise((r) => setTimeout(r, 20));
  release();
  await until(() => answered === 25);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map(String), []);
});
