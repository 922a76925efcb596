// The rest of the client against the real binary: threads, turn control,
// capability errors, and refusals as typed errors.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CapabilityError, createRuntimeClient, RuntimeApiError } from "../dist/index.js";
import { slowText, text, toolCall } from "./support/replies.mjs";
import { startRuntime } from "./support/runtime.mjs";
import { agentText, assertContiguous, collect, turnCompleted } from "./support/stream.mjs";
import { tapFetch } from "./support/tap.mjs";

async function setup(t, options = {}) {
  const runtime = await startRuntime(options);
  t.after(() => runtime.stop());
  const client = createRuntimeClient({ baseUrl: runtime.url, token: runtime.token });
  return { runtime, client };
}

test("runtime info, health, and threads: create, list, summary, get, update, fork, resume", async (t) => {
  const { runtime, client } = await setup(t);
  const info = await client.runtimeInfo();
  assert.equal(info.service, "codewhale-runtime-api");
  assert.equal(info.auth_required, true);
  assert.equal(info.capabilities.threads, true);
  assert.deepEqual(await client.health(), { status: "ok", service: "codewhale-runtime-api", mode: "local" });

  const thread = await client.createThread({ title: "alpha", mode: "plan" });
  assert.match(thread.id, /^thr_/);
  assert.equal(thread.mode, "plan");
  assert.equal(thread.workspace, runtime.workspace);
  await client.createThread({ title: "other" });
  assert.deepEqual((await client.listThreads({ search: "alpha" })).map((t) => t.id), [thread.id]);
  assert.equal((await client.listThreads({ limit: 1 })).length, 1);
  const summary = (await client.threadSummaries()).find((s) => s.id === thread.id);
  assert.equal(summary.title, "alpha");
  assert.equal(summary.mode, "plan");

  const archived = await client.updateThread(thread.id, { title: "beta", archived: true });
  assert.equal(archived.title, "beta");
  assert.equal(archived.archived, true);
  assert.ok(!(await client.listThreads()).some((t) => t.id === thread.id));
  assert.ok((await client.listThreads({ archived_only: true })).some((t) => t.id === thread.id));
  assert.equal((await client.resumeThread(thread.id)).archived, false);

  await runtime.mock.push(text("forked history"));
  const events = client.events(thread.id, { sinceSeq: (await client.getThread(thread.id)).latest_seq });
  const started = await client.startTurn(thread.id, { prompt: "say something", mode: "agent" });
  await collect(events, turnCompleted(started.turn.id));
  const fork = await client.forkThread(thread.id);
  assert.notEqual(fork.id, thread.id);
  assert.equal(fork.title, "beta (fork)");
  const forked = await client.getThread(fork.id);
  assert.equal(forked.turns.length, 1);
  assert.equal(forked.items.find((i) => i.kind === "agent_message").detail, "forked history");

  const missing = await client.getThread("thr_0000000000000000").catch((e) => e);
  assert.ok(missing instanceof RuntimeApiError);
  assert.equal(missing.status, 404);
  assert.equal(missing.kind, "not_found");
  const bad = await client.createThread({ mode: "chaos" }).catch((e) => e);
  assert.equal(bad.status, 400);
  assert.match(bad.message, /mode must be one of/);
});

test("the running server serves the document this SDK's types were generated from", async (t) => {
  const { client } = await setup(t);
  const committed = JSON.parse(readFileSync(new URL("../../../openapi/codewhale-v1.json", import.meta.url), "utf8"));
  const served = await client.openapi();
  assert.equal(served.openapi, "3.1.0");
  assert.deepEqual(served, committed, "openapi/codewhale-v1.json is stale against the binary under test");
});

test("steer, interrupt and compact a turn", async (t) => {
  const { runtime, client } = await setup(t);
  const thread = await client.createThread({});
  // A slow answer: time to steer it, then interrupt it.
  await runtime.mock.push(slowText(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"], 150), text("after steering"));
  const events = client.events(thread.id, { sinceSeq: (await client.getThread(thread.id)).latest_seq });
  const started = await client.startTurn(thread.id, "take your time");
  const turnId = started.turn.id;
  let steered = false;
  const items = await collect(events, turnCompleted(turnId), {
    onItem: async (item) => {
      if (item.event === "item.delta" && !steered) {
        steered = true;
        const turn = await client.steerTurn(thread.id, turnId, "also mention whales");
        assert.equal(turn.steer_count, 1);
      }
      if (item.event === "turn.steered") {
        assert.equal(item.payload.prompt, "also mention whales");
        const turn = await client.interruptTurn(thread.id, turnId);
        assert.equal(turn.id, turnId);
      }
    },
  });
  assert.ok(items.some((i) => i.event === "turn.steered"));
  assert.ok(items.some((i) => i.event === "turn.interrupt_requested"));
  assert.equal(items.at(-1).payload.turn.status, "interrupted");
  // Steering a turn that is over is a conflict or a not-found, typed either way.
  const late = await client.steerTurn(thread.id, turnId, "too late").catch((e) => e);
  assert.ok(late instanceof RuntimeApiError);
  assert.ok([404, 409].includes(late.status), String(late.status));

  await runtime.mock.reset();
  await runtime.mock.push(text("Summary: a slow count, steered toward whales."));
  const compactEvents = client.events(thread.id, { sinceSeq: (await client.getThread(thread.id)).latest_seq });
  const compact = await client.compactThread(thread.id, { reason: "sdk test" });
  const compacted = await collect(compactEvents, turnCompleted(compact.turn.id));
  assert.equal(compacted.at(-1).payload.turn.status, "completed");
  const detail = await client.getThread(thread.id);
  assert.ok(detail.items.some((i) => i.kind === "context_compaction"));
});

test("capability errors: pairing needs a --mobile server (managing devices does not); a --mobile server pairs", async (t) => {
  const fetch = tapFetch();
  const { runtime } = await setup(t);
  const client = createRuntimeClient({ baseUrl: runtime.url, token: runtime.token, fetch });
  assert.equal((await client.runtimeInfo()).capabilities.mobile, false);
  const error = await client.createPairing({ label: "phone" }).catch((e) => e);
  assert.ok(error instanceof CapabilityError, String(error));
  assert.equal(error.capability, "mobile");
  assert.ok(!fetch.requests.some((r) => r.url.includes("/v1/devices")), "no pairing request was sent");
  assert.equal(fetch.requests.filter((r) => r.url.endsWith("/v1/runtime/info")).length, 1, "info read once");
  // Managing devices is the computer's on any server of the home.
  assert.deepEqual(await client.listDevices(), []);
  const unknown = await client.revokeDevice("dev_1").catch((e) => e);
  assert.ok(unknown instanceof RuntimeApiError && unknown.status === 404, String(unknown));

  const mobile = await startRuntime({ mobile: true });
  t.after(() => mobile.stop());
  const phoneClient = createRuntimeClient({ baseUrl: mobile.url, token: mobile.token });
  assert.equal((await phoneClient.runtimeInfo()).capabilities.mobile, true);
  assert.deepEqual(await phoneClient.listDevices(), []);
  const pairing = await phoneClient.createPairing({ label: "test phone", ttl_seconds: 60 });
  assert.match(pairing.url, /\/__codewhale\/pair\//);
  assert.equal(pairing.label, "test phone");
});

test("a wrong token is a typed 401, on calls and on the stream (which is not retried)", async (t) => {
  const { runtime, client } = await setup(t);
  const thread = await client.createThread({});
  const fetch = tapFetch();
  const wrong = createRuntimeClient({ baseUrl: runtime.url, token: "not-the-token-0000000000", fetch, checkCapabilities: false });
  const refused = await wrong.listThreads().catch((e) => e);
  assert.ok(refused instanceof RuntimeApiError);
  assert.equal(refused.status, 401);
  assert.equal(refused.kind, "unauthorized");
  assert.equal(refused.message, "runtime API token is not valid");
  const streamed = await collect(wrong.events(thread.id, { reconnect: { initialDelayMs: 5 } }), () => true).catch((e) => e);
  assert.ok(streamed instanceof RuntimeApiError, String(streamed));
  assert.equal(streamed.status, 401);
  assert.equal(fetch.streams.length, 1, "not retried");

  // An unknown thread's stream is a 404, also final.
  const missing = await collect(client.events("thr_0000000000000000"), () => true).catch((e) => e);
  assert.ok(missing instanceof RuntimeApiError);
  assert.equal(missing.status, 404);
});

test("a stream outliving its server reconnects to the restarted one and goes on where it was", async (t) => {
  const { runtime, client } = await setup(t);
  const thread = await client.createThread({});
  await runtime.mock.push(text("before the restart"), text("after the restart"));
  const reconnects = [];
  const events = client.events(thread.id, {
    reconnect: { initialDelayMs: 50, maxDelayMs: 400 },
    onReconnect: (r) => reconnects.push(r),
  });
  const first = await client.startTurn(thread.id, "one");
  let second;
  const items = await collect(events, (item) => second && turnCompleted(second.turn.id)(item), {
    onItem: async (item) => {
      if (!turnCompleted(first.turn.id)(item)) return;
      // The server stops (its streams end) and comes back on the same port
      // and home while the iteration waits.
      await runtime.restart();
      second = await client.startTurn(thread.id, "two");
    },
  });
  assert.ok(reconnects.length >= 1, "reconnected");
  assert.ok(reconnects.every((r) => r.reason === "ended" || r.reason === "error"), JSON.stringify(reconnects.map((r) => r.reason)));
  assertContiguous(assert, items, 0);
  assert.equal(agentText(items), "before the restartafter the restart");
});

test("tasks: queued, run with no client attached, answered, cancelled, cleared", async (t) => {
  const { runtime, client } = await setup(t);
  assert.equal((await client.runtimeInfo()).capabilities.tasks, true);
  await runtime.mock.push(text("done overnight"));
  const task = await client.createTask({ prompt: "tidy the docs" });
  assert.match(task.id, /^task_/);
  assert.equal(task.status, "queued");
  let done = task;
  for (let i = 0; i < 200 && done.status !== "completed"; i++) {
    await new Promise((r) => setTimeout(r, 50));
    done = await client.getTask(task.id);
  }
  assert.equal(done.status, "completed");
  assert.equal(done.answer, "done overnight");
  assert.equal((await client.getThread(done.thread_id)).turns.length, 1);
  assert.deepEqual((await client.listTasks({ status: "completed" })).map((x) => x.id), [task.id]);

  const finished = await client.cancelTask(task.id).catch((e) => e);
  assert.ok(finished instanceof RuntimeApiError);
  assert.equal(finished.status, 409);
  assert.deepEqual(await client.clearTasks(), { cleared: 1 });
  assert.deepEqual(await client.listTasks(), []);
});

test("automations: previewed, created, run by hand, paused, listed with their runs, deleted", async (t) => {
  const { runtime, client } = await setup(t);
  assert.equal((await client.runtimeInfo()).capabilities.automations, true);
  const preview = await client.previewSchedule({ schedule: "0 9 * * 1-5", timezone: "UTC" });
  assert.equal(preview.next_runs.length, 5);
  assert.match(preview.description, /09:00/);
  // A cron expression the server cannot read is a 409 (no schema states cron's grammar).
  const bad = await client.previewSchedule({ schedule: "whenever" }).catch((e) => e);
  assert.ok(bad instanceof RuntimeApiError);
  assert.equal(bad.status, 409);

  const auto = await client.createAutomation({ name: "weekday digest", prompt: "summarize", schedule: "0 9 * * 1-5", timezone: "UTC" });
  assert.match(auto.id, /^auto_/);
  assert.equal(auto.state, "active");
  assert.ok(Date.parse(auto.next_run_at) > Date.now());

  await runtime.mock.push(text("digest ready"));
  const run = await client.runAutomation(auto.id);
  assert.equal(run.trigger, "manual");
  let task = run.task;
  for (let i = 0; i < 200 && task.status !== "completed"; i++) {
    await new Promise((r) => setTimeout(r, 50));
    task = await client.getTask(run.task_id);
  }
  assert.equal(task.answer, "digest ready");
  const runs = await client.listAutomationRuns(auto.id, { limit: 5 });
  assert.deepEqual(runs.map((r) => r.id), [run.id]);
  assert.equal(runs[0].task.status, "completed");

  const paused = await client.pauseAutomation(auto.id);
  assert.equal(paused.state, "paused");
  assert.equal(paused.next_run_at, null);
  assert.equal((await client.resumeAutomation(auto.id)).state, "active");
  assert.equal((await client.updateAutomation(auto.id, { name: "digest" })).name, "digest");
  assert.deepEqual((await client.listAutomations()).map((a) => a.name), ["digest"]);
  await client.deleteAutomation(auto.id);
  const gone = await client.getAutomation(auto.id).catch((e) => e);
  assert.equal(gone.status, 404);
});

test("fleet: a run of two workers, its event stream, workers, restart, and refusals", async (t) => {
  const { runtime, client } = await setup(t);
  assert.equal((await client.runtimeInfo()).capabilities.fleet, true);
  await runtime.mock.push({ ...text("first done"), when_contains: "fleet-first" }, { ...text("second done"), when_contains: "fleet-second" });
  const created = await client.createFleetRun({
    workers: [{ prompt: "fleet-first" }, { prompt: "fleet-second" }],
    workspace: runtime.workspace,
    isolation: "shared",
  });
  assert.match(created.run.id, /^fleet_/);
  assert.equal(created.workers.length, 2);
  const seen = [];
  for await (const event of client.fleetEvents(created.run.id)) {
    seen.push(event);
    if (event.event === "fleet.run.finished") break;
  }
  assert.equal(seen[0].event, "fleet.run.created");
  assert.equal(seen.filter((e) => e.event === "fleet.worker.finished").length, 2);
  assert.equal(seen.at(-1).payload.status, "completed");
  const detail = await client.getFleetRun(created.run.id);
  assert.deepEqual(detail.workers.map((w) => w.answer).sort(), ["first done", "second done"]);
  const { runs } = await client.listFleetRuns();
  assert.deepEqual(runs.map((r) => r.id), [created.run.id]);
  const { workers } = await client.listFleetWorkers(created.run.id);
  const worker = await client.getFleetWorker(workers[0].worker_id);
  assert.equal(worker.status, "completed");

  // Restarted, the worker runs again on its thread; interrupting a finished one is refused.
  await runtime.mock.push({ ...text("again"), when_contains: "fleet-first" });
  const restarted = await client.restartWorker(worker.worker_id);
  assert.equal(restarted.attempts, 2);
  const after = seen.at(-1).seq;
  for await (const event of client.fleetEvents(created.run.id, { sinceSeq: after })) {
    assert.ok(event.seq > after);
    if (event.event === "fleet.run.finished") break;
  }
  assert.equal((await client.getFleetWorker(worker.worker_id)).answer, "again");
  const refused = await client.interruptWorker(worker.worker_id).catch((e) => e);
  assert.ok(refused instanceof RuntimeApiError);
  assert.equal(refused.status, 409);
  const stop = await client.stopFleetRun(created.run.id).catch((e) => e);
  assert.equal(stop.status, 409);
  // Worktree isolation needs a git repository.
  const plain = await client.createFleetRun({ workers: [{ prompt: "p" }], workspace: runtime.workspace }).catch((e) => e);
  assert.equal(plain.status, 409);
});

test("agent runs: a sub-agent's lifecycle on the parent's stream and its receipt", async (t) => {
  const { runtime, client } = await setup(t);
  assert.equal((await client.runtimeInfo()).capabilities.agent_runs, true);
  await runtime.mock.push(toolCall("spawn_agent", { prompt: "sdk-child: look around" }), text("parent done"));
  await runtime.mock.push({ ...text("child report"), when_contains: "depth 1 of" });
  const thread = await client.createThread({});
  const events = client.events(thread.id, { sinceSeq: (await client.getThread(thread.id)).latest_seq });
  const started = await client.startTurn(thread.id, { prompt: "delegate" });
  const seen = await collect(events, turnCompleted(started.turn.id));
  const names = seen.map((e) => e.event);
  assert.ok(names.indexOf("agent.spawned") < names.indexOf("agent.completed"));
  const completed = seen.find((e) => e.event === "agent.completed").payload;
  assert.equal(completed.status, "completed");
  assert.equal(completed.answer, "child report");

  const { runs } = await client.listAgentRuns({ parent_thread_id: thread.id });
  assert.equal(runs.length, 1);
  assert.equal(runs[0].actor_kind, "sub_agent");
  assert.equal(runs[0].spec.prompt, "sdk-child: look around");
  assert.deepEqual(await client.getAgentRun(runs[0].worker_id), runs[0]);
  const missing = await client.getAgentRun("agent_00").catch((e) => e);
  assert.ok(missing instanceof RuntimeApiError);
  assert.equal(missing.status, 404);
  // A run in its parent's workspace has no worktree to remove.
  const shared = await client.cleanUpAgentRun(runs[0].run_id).catch((e) => e);
  assert.ok(shared instanceof RuntimeApiError);
  assert.equal(shared.status, 409);
});

test("skills: create, list, toggle; a bad import is a typed error", async (t) => {
  const { runtime, client } = await setup(t);
  assert.equal((await client.runtimeInfo()).capabilities.skills, true);
  const created = await client.createSkill({ name: "sdk-skill", description: "Made by the SDK.", body: "Do it.\n" });
  assert.equal(created.enabled, true);
  assert.equal(created.source, "global");
  const listed = await client.listSkills({ workspace: runtime.workspace });
  assert.deepEqual(listed.map((s) => s.name), ["sdk-skill"]);
  const off = await client.setSkillEnabled("sdk-skill", { enabled: false });
  assert.equal(off.enabled, false);
  assert.equal((await client.listSkills())[0].enabled, false);
  const refused = await client.importSkill({ path: "/nonexistent/skill.zip" }).catch((e) => e);
  assert.ok(refused instanceof RuntimeApiError);
  assert.equal(refused.status, 409);
  const clash = await client.createSkill({ name: "sdk-skill", description: "again", body: "" }).catch((e) => e);
  assert.equal(clash.status, 409);
});

test("MCP servers: add, list with values hidden, change, a failed start reported, remove", async (t) => {
  const { client } = await setup(t);
  assert.equal((await client.runtimeInfo()).capabilities.mcp_servers, true);
  const added = await client.createMcpServer({
    name: "gone",
    command: "/nonexistent/mcp-server",
    env: { SDK_SECRET: "never-shown" },
  });
  assert.equal(added.status, "idle");
  assert.deepEqual(added.env, ["SDK_SECRET"]);
  assert.ok(!JSON.stringify(await client.listMcpServers()).includes("never-shown"));
  const trusted = await client.patchMcpServer("gone", { trusted: true });
  assert.equal(trusted.trusted, true);
  // A listing tries to start it: it cannot, and says why.
  const listing = await client.listMcpTools({ server: "gone" });
  assert.deepEqual(listing.tools, []);
  assert.equal(listing.servers[0].status, "failed");
  assert.match(listing.servers[0].last_error, /cannot start/);
  const wrong = await client.patchMcpServer("gone", { url: "http://127.0.0.1:9/mcp" }).catch((e) => e);
  assert.ok(wrong instanceof RuntimeApiError);
  assert.equal(wrong.status, 409);
  await client.deleteMcpServer("gone");
  const missing = await client.getMcpServer("gone").catch((e) => e);
  assert.equal(missing.status, 404);
});

test("sessions: a thread saved, listed, read, resumed as a thread, deleted", async (t) => {
  const { runtime, client } = await setup(t);
  assert.equal((await client.runtimeInfo()).capabilities.sessions, true);
  const thread = await client.createThread({ title: "sdk session" });
  await runtime.mock.push(text("saved answer"));
  const events = client.events(thread.id, { sinceSeq: (await client.getThread(thread.id)).latest_seq });
  const started = await client.startTurn(thread.id, { prompt: "save me" });
  await collect(events, turnCompleted(started.turn.id));
  const saved = await client.persistSession(thread.id);
  assert.equal(saved.title, "sdk session");
  assert.equal(saved.message_count, 2);
  assert.deepEqual((await client.listSessions({ search: "SDK" })).sessions.map((s) => s.id), [saved.id]);
  const detail = await client.getSession(saved.id);
  assert.deepEqual(detail.messages.map((m) => m.content[0].text), ["save me", "saved answer"]);
  const resumed = await client.resumeSessionThread(saved.id);
  const carried = await client.getThread(resumed.id);
  assert.equal(carried.items.find((i) => i.kind === "agent_message").detail, "saved answer");
  await client.deleteSession(saved.id);
  const missing = await client.getSession(saved.id).catch((e) => e);
  assert.ok(missing instanceof RuntimeApiError);
  assert.equal(missing.status, 404);
});
