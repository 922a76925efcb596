// What a turn asks of its client, answered through the SDK against the real
// binary: an approval, a question, a client-executed tool (exactly once),
// and the usage it all cost.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRuntimeClient, registerTool, RuntimeApiError } from "../dist/index.js";
import { text, toolCall } from "./support/replies.mjs";
import { startRuntime } from "./support/runtime.mjs";
import { agentText, assertContiguous, collect, turnCompleted } from "./support/stream.mjs";
import { tapFetch } from "./support/tap.mjs";

const fast = { initialDelayMs: 20, maxDelayMs: 200, maxRetries: 20 };

async function setup(t, fetch) {
  const runtime = await startRuntime();
  t.after(() => runtime.stop());
  const client = createRuntimeClient({ baseUrl: runtime.url, token: runtime.token, ...(fetch ? { fetch } : {}) });
  return { runtime, client };
}

test("approves a file write the agent asks for", async (t) => {
  const { runtime, client } = await setup(t);
  const thread = await client.createThread({ workspace: runtime.workspace });
  assert.equal(thread.auto_approve, false);
  await runtime.mock.push(toolCall("write_file", { path: "notes/hello.txt", content: "hello from the sdk\n" }), text("Written."));
  const snapshot = await client.getThread(thread.id);
  const events = client.events(thread.id, { sinceSeq: snapshot.latest_seq });
  const started = await client.startTurn(thread.id, "write a greeting");
  let decided;
  const items = await collect(events, turnCompleted(started.turn.id), {
    onItem: async (item) => {
      if (item.event !== "approval.required") return;
      assert.equal(existsSync(join(runtime.workspace, "notes/hello.txt")), false, "nothing written before the decision");
      // A client arriving now would find it in the snapshot too.
      const pending = (await client.getThread(thread.id)).pending_approvals;
      assert.equal(pending[0].approval_id, item.payload.approval_id);
      decided = await client.decideApproval(item.payload.approval_id, "allow");
    },
  });

  const required = items.find((i) => i.event === "approval.required");
  assert.equal(required.payload.tool_name, "write_file");
  assert.deepEqual(decided, { ok: true, approval_id: required.payload.approval_id, decision: "allow", delivered: true });
  assert.equal(items.find((i) => i.event === "approval.decided").payload.decision, "allow");
  assert.equal(readFileSync(join(runtime.workspace, "notes/hello.txt"), "utf8"), "hello from the sdk\n");
  assert.equal(items.at(-1).payload.turn.status, "completed");
  assert.equal(agentText(items), "Written.");
  assertContiguous(assert, items, snapshot.latest_seq);
  // Settled once: deciding again is a typed 404.
  const again = await client.decideApproval(required.payload.approval_id, { decision: "deny" }).catch((e) => e);
  assert.ok(again instanceof RuntimeApiError);
  assert.equal(again.status, 404);
  assert.equal(again.kind, "not_found");
});

test("answers the agent's question; the answer reaches the model", async (t) => {
  const { runtime, client } = await setup(t);
  const thread = await client.createThread({});
  const questions = {
    questions: [
      { id: "db", header: "Database", question: "Which database?", options: [{ label: "SQLite" }, { label: "Postgres" }] },
      { id: "name", question: "Project name?", allow_free_text: true },
    ],
  };
  await runtime.mock.push(toolCall("request_user_input", questions), text("Using SQLite for whalewatch."));
  const events = client.events(thread.id, { sinceSeq: (await client.getThread(thread.id)).latest_seq });
  const started = await client.startTurn(thread.id, "set up a project");
  let answered;
  const items = await collect(events, turnCompleted(started.turn.id), {
    onItem: async (item) => {
      if (item.event !== "user_input.required") return;
      assert.equal(item.payload.request.questions[0].options[0].label, "SQLite");
      answered = await client.answerUserInput(thread.id, item.payload.input_id, [
        { id: "db", label: "SQLite", value: "SQLite" },
        { id: "name", label: "Other", value: "whalewatch" },
      ]);
    },
  });

  const required = items.find((i) => i.event === "user_input.required");
  assert.deepEqual(answered, { ok: true, input_id: required.payload.input_id, delivered: true });
  assert.equal(items.find((i) => i.event === "user_input.answered").payload.input_id, required.payload.input_id);
  assert.equal(agentText(items), "Using SQLite for whalewatch.");
  const requests = await runtime.mock.requests();
  const toolMessage = requests[1].messages.find((m) => m.role === "tool");
  assert.match(toolMessage.content, /whalewatch/);
  assert.match(toolMessage.content, /SQLite/);
});

const openFile = (calls) => ({
  namespace: "ide",
  name: "open_file",
  description: "Open a file in the editor",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  handler: async (args, call) => {
    calls.push({ args, callId: call.callId, turnId: call.turnId });
    return `opened ${args.path} at line 1`;
  },
});

test("registerTool answers a client tool exactly once, across a cut connection and a replay from the start", async (t) => {
  let reopened;
  const secondStream = new Promise((resolve) => (reopened = resolve));
  const fetch = tapFetch({
    // Every reconnection replays the whole thread (as a careless proxy
    // or server might): the call's request comes again and must not run
    // the handler again.
    rewrite: (url, index) => {
      if (index === 0) return url;
      const u = new URL(url);
      u.searchParams.set("since_seq", "0");
      return u.href;
    },
    onStream: (entry) => fetch.streams.length === 2 && reopened(entry),
  });
  const { runtime, client } = await setup(t, fetch);
  const calls = [];
  const tool = openFile(calls);
  const handler = tool.handler;
  tool.handler = async (args, call) => {
    // The connection drops while the tool runs; the result is sent only
    // once the stream has come back (with the whole history replayed).
    fetch.cutAll();
    await secondStream;
    return handler(args, call);
  };
  const thread = await client.createThread({});
  let ended;
  const outcome = new Promise((resolve) => (ended = resolve));
  const registration = registerTool(client, thread.id, tool, {
    events: { reconnect: fast },
    onCall: (call, how) => ended([call.callId, how]),
  });
  t.after(() => registration.stop());
  await registration.ready;
  assert.deepEqual(registration.spec, {
    namespace: "ide",
    name: "open_file",
    description: "Open a file in the editor",
    input_schema: tool.inputSchema,
  });
  await runtime.mock.push(toolCall("ide__open_file", { path: "src/main.rs" }), text("Opened it."));
  const watcher = createRuntimeClient({ baseUrl: runtime.url, token: runtime.token });
  const events = watcher.events(thread.id);
  // Registered on the turn: the spec goes into its dynamic_tools.
  const started = await client.startTurn(thread.id, { prompt: "open main", dynamic_tools: [registration.spec] });
  const items = await collect(events, turnCompleted(started.turn.id));

  const requested = items.filter((i) => i.event === "tool_call.requested");
  assert.equal(requested.length, 1);
  const callId = requested[0].payload.call_id;
  assert.deepEqual(await outcome, [callId, "answered"]);
  assert.deepEqual(calls, [{ args: { path: "src/main.rs" }, callId, turnId: started.turn.id }]);
  assert.equal((await secondStream).sinceSeq, 0, "the reconnection replayed from the start");
  const posts = fetch.requests.filter((r) => r.method === "POST" && r.url.endsWith(`/tool-calls/${callId}/result`));
  assert.equal(posts.length, 1, "one result posted");
  assert.equal(items.filter((i) => i.event === "tool_call.resolved").length, 1);
  assert.equal(items.filter((i) => i.event === "tool_call.timeout" || i.event === "tool_call.canceled").length, 0);
  assert.equal(registration.calls.get(callId), "answered");
  assert.equal(agentText(items), "Opened it.");
  const last = (await runtime.mock.requests()).at(-1);
  assert.match(JSON.stringify(last.messages), /opened src\/main.rs at line 1/);

  // One client registers a tool once per thread: a second registration
  // is refused while the first runs.
  assert.throws(() => registerTool(client, thread.id, openFile([])), /already registered/);
  registration.stop();
  await registration.done;
  assert.equal(calls.length, 1);

  // A later registration of the same tool finds nothing to answer: the
  // call was resolved, and resolved calls are never run again.
  const later = [];
  const second = registerTool(client, thread.id, openFile(later));
  await second.ready;
  second.stop();
  await second.done;
  assert.deepEqual(later, []);
  assert.equal(second.calls.size, 0);
});

test("registerTool answers a call that was already waiting when it started (from the snapshot)", async (t) => {
  const { runtime, client } = await setup(t);
  const calls = [];
  const tool = openFile(calls);
  const thread = await client.createThread({ dynamic_tools: [{ namespace: "ide", name: "open_file" }] });
  await runtime.mock.push(toolCall("ide__open_file", { path: "README.md" }), text("Done."));
  const events = client.events(thread.id);
  const started = await client.startTurn(thread.id, "open the readme");
  let registration;
  let ended;
  const outcome = new Promise((resolve) => (ended = resolve));
  const items = await collect(events, turnCompleted(started.turn.id), {
    onItem: async (item) => {
      if (item.event !== "tool_call.requested") return;
      assert.equal((await client.getThread(thread.id)).pending_dynamic_tool_calls.length, 1);
      registration = client.registerTool(thread.id, tool, { onCall: (call, how) => ended([call.callId, how]) });
      await registration.ready;
    },
  });
  t.after(() => registration?.stop());

  assert.deepEqual(calls.map((c) => c.args), [{ path: "README.md" }]);
  assert.deepEqual(await outcome, [calls[0].callId, "answered"]);
  assert.equal(items.filter((i) => i.event === "tool_call.resolved").length, 1);
  assert.deepEqual((await client.getThread(thread.id)).pending_dynamic_tool_calls, []);
  assert.equal(agentText(items), "Done.");
});

test("reads usage: tokens, cost and turns, grouped", async (t) => {
  const { runtime, client } = await setup(t);
  const thread = await client.createThread({});
  await runtime.mock.push(text("one"), text("two"));
  for (const prompt of ["first", "second"]) {
    const events = client.events(thread.id, { sinceSeq: (await client.getThread(thread.id)).latest_seq });
    const started = await client.startTurn(thread.id, prompt);
    await collect(events, turnCompleted(started.turn.id));
  }
  const report = await client.usage();
  assert.equal(report.group_by, "day");
  assert.equal(report.totals.turns, 2);
  assert.equal(report.totals.input_tokens, 200);
  assert.equal(report.totals.output_tokens, 40);
  // mock-large costs $1 per million input tokens and $2 per million output.
  assert.ok(Math.abs(report.totals.cost_usd - (200 * 1 + 40 * 2) / 1e6) < 1e-12, String(report.totals.cost_usd));
  const byModel = await client.usage({ group_by: "model" });
  assert.deepEqual(byModel.buckets.map((b) => [b.key, b.turns]), [["mock-large", 2]]);
  const byThread = await client.usage({ group_by: "thread" });
  assert.deepEqual(byThread.buckets.map((b) => b.key), [thread.id]);
  const bad = await client.usage({ group_by: "planet" }).catch((e) => e);
  assert.ok(bad instanceof RuntimeApiError);
  assert.equal(bad.status, 400);
});
