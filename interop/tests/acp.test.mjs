// `codewhale acp` driven by the official ACP client SDK
// (@agentclientprotocol/sdk): the real binary over stdio, its own
// CODEWHALE_HOME, and the mock provider scripting the model's replies.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { useMock, mock, setup, script, text, toolCall, withAgent, initialize } from "./lib/acp.mjs";

useMock();

const chunks = (updates, kind) =>
  updates.filter((n) => n.update.sessionUpdate === kind).map((n) => n.update.content.text).join("");

test("initialize, session/new and a prompt that streams its answer and ends the turn", async () => {
  const env = await setup();
  await script(text(["Hello ", "from ", "codewhale."]));
  await withAgent(env, async (ctx, seen) => {
    const init = await initialize(ctx);
    assert.equal(init.protocolVersion, 1);
    assert.equal(init.agentInfo.name, "codewhale");
    assert.equal(init.agentCapabilities.loadSession, true);
    assert.equal(init.agentCapabilities.promptCapabilities.embeddedContext, true);
    assert.deepEqual(Object.keys(init.agentCapabilities.sessionCapabilities).sort(), ["close", "list", "resume"]);

    const session = await ctx.request("session/new", { cwd: env.workspace, mcpServers: [] });
    assert.match(session.sessionId, /^thr_/);
    assert.equal(session.modes.currentModeId, "agent");
    assert.deepEqual(session.modes.availableModes.map((m) => m.id), ["agent", "plan", "yolo"]);
    const model = session.configOptions.find((o) => o.id === "model");
    assert.equal(model.currentValue, "mock-1");
    assert.deepEqual(model.options.map((o) => o.value), ["mock-1", "mock-2"]);

    const answer = await ctx.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [
        { type: "text", text: "Say hello." },
        { type: "resource", resource: { uri: "file:///notes.md", text: "the embedded note" } },
      ],
    });
    assert.equal(answer.stopReason, "end_turn");
    assert.ok(seen.updates.every((n) => n.sessionId === session.sessionId));
    const commands = seen.updates.find((n) => n.update.sessionUpdate === "available_commands_update");
    assert.deepEqual(commands.update.availableCommands.map((c) => c.name), ["compact"]);
    assert.equal(chunks(seen.updates, "agent_message_chunk"), "Hello from codewhale.");
    const usage = seen.updates.find((n) => n.update.sessionUpdate === "usage_update");
    assert.equal(usage.update.used, 150);

    // The model read the prompt with its embedded resource.
    const requests = await (await fetch(`${mock.url}/__mock/requests`)).json();
    const user = requests.at(-1).messages.findLast((m) => m.role === "user").content;
    assert.match(user, /Say hello\./);
    assert.match(user, /<context uri="file:\/\/\/notes\.md">\nthe embedded note\n<\/context>/);

    // Bad params are a JSON-RPC error, not a crash.
    await assert.rejects(ctx.request("session/new", { cwd: "relative/dir", mcpServers: [] }), (e) => e.code === -32602);
    await assert.rejects(ctx.request("session/prompt", { sessionId: "thr_0123456789abcdef", prompt: [{ type: "text", text: "x" }] }), (e) => e.code === -32002);
    await assert.rejects(ctx.request("session/prompt", { sessionId: "../etc", prompt: [{ type: "text", text: "x" }] }), (e) => e.code === -32602);
  });
});

test("a write asks permission: allowed it runs and shows a diff; rejected it does not run", async () => {
  const env = await setup();
  writeFileSync(join(env.workspace, "notes.txt"), "one\ntwo\nthree\n");
  await script(
    toolCall("call_edit", "edit_file", { path: "notes.txt", old_string: "two", new_string: "TWO" }),
    text(["Edited."]),
    toolCall("call_write", "write_file", { path: "new.txt", content: "never\n" }),
    text(["Not written."]),
  );
  await withAgent(env, async (ctx, seen) => {
    await initialize(ctx);
    const { sessionId } = await ctx.request("session/new", { cwd: env.workspace, mcpServers: [] });

    const allowed = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Capitalize two." }] });
    assert.equal(allowed.stopReason, "end_turn");
    assert.equal(readFileSync(join(env.workspace, "notes.txt"), "utf8"), "one\nTWO\nthree\n");
    assert.equal(seen.permissions.length, 1);
    const asked = seen.permissions[0];
    assert.equal(asked.sessionId, sessionId);
    assert.deepEqual(asked.options.map((o) => o.kind), ["allow_once", "allow_always", "reject_once", "reject_always"]);
    assert.equal(asked.toolCall.title, "Edit notes.txt");
    const call = seen.updates.find((n) => n.update.sessionUpdate === "tool_call");
    assert.equal(call.update.kind, "edit");
    assert.equal(asked.toolCall.toolCallId, call.update.toolCallId);
    const done = seen.updates.find((n) => n.update.sessionUpdate === "tool_call_update" && n.update.status === "completed");
    assert.equal(done.update.toolCallId, call.update.toolCallId);
    const diff = done.update.content.find((c) => c.type === "diff");
    assert.equal(diff.path, join(env.workspace, "notes.txt"));
    assert.equal(diff.oldText, "one\ntwo\nthree\n");
    assert.equal(diff.newText, "one\nTWO\nthree\n");
    assert.deepEqual(done.update.locations, [{ path: join(env.workspace, "notes.txt") }]);
    assert.equal(chunks(seen.updates, "agent_message_chunk"), "Edited.");

    seen.updates.length = 0;
    seen.answer = "reject_once";
    const rejected = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Write new.txt." }] });
    assert.equal(rejected.stopReason, "end_turn");
    assert.equal(existsSync(join(env.workspace, "new.txt")), false);
    assert.equal(seen.permissions.length, 2);
    const failed = seen.updates.find((n) => n.update.sessionUpdate === "tool_call_update");
    assert.equal(failed.update.status, "failed");
    assert.match(JSON.stringify(failed.update.content), /denied/);
    assert.equal(chunks(seen.updates, "agent_message_chunk"), "Not written.");
  });
});

test("session/cancel mid-stream: the prompt answers cancelled, and the next prompt works", async () => {
  const env = await setup();
  const slow = text(Array.from({ length: 40 }, (_, i) => `word${i} `), 100);
  await script(slow, text(["Still here."]));
  await withAgent(env, async (ctx, seen) => {
    await initialize(ctx);
    const { sessionId } = await ctx.request("session/new", { cwd: env.workspace, mcpServers: [] });
    const pending = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Talk slowly." }] });
    while (!seen.updates.some((n) => n.update.sessionUpdate === "agent_message_chunk")) {
      await new Promise((r) => setTimeout(r, 20));
    }
    // One prompt at a time per session.
    await assert.rejects(
      ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "And another" }] }),
      (e) => e.code === -32600,
    );
    await ctx.notify("session/cancel", { sessionId });
    const answer = await pending;
    assert.equal(answer.stopReason, "cancelled");
    assert.ok(chunks(seen.updates, "agent_message_chunk").length < 40 * 6, "the stream stopped early");

    const next = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Still there?" }] });
    assert.equal(next.stopReason, "end_turn");
    assert.match(chunks(seen.updates, "agent_message_chunk"), /Still here\.$/);
  });
});

test("an answer cut at the token limit is max_tokens; a filtered one is refusal", async () => {
  const env = await setup();
  await script(text(["Half an ans"], 0, "length"), text(["I can't"], 0, "content_filter"));
  await withAgent(env, async (ctx) => {
    await initialize(ctx);
    const { sessionId } = await ctx.request("session/new", { cwd: env.workspace, mcpServers: [] });
    const cut = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Write a lot" }] });
    assert.equal(cut.stopReason, "max_tokens");
    const filtered = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Something bad" }] });
    assert.equal(filtered.stopReason, "refusal");
  });
});

test("set_mode, set_config_option, list, and load replaying the history in order", async () => {
  const env = await setup();
  await script(
    text(["First ", "answer."]),
    toolCall("call_plan", "update_plan", { plan: [{ step: "Read the code", status: "completed" }, { step: "Fix it", status: "in_progress" }] }),
    text(["Planned."]),
  );
  let sessionId;
  await withAgent(env, async (ctx, seen) => {
    await initialize(ctx);
    ({ sessionId } = await ctx.request("session/new", { cwd: env.workspace, mcpServers: [] }));
    assert.equal((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "First question" }] })).stopReason, "end_turn");
    assert.equal((await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Make a plan" }] })).stopReason, "end_turn");
    const plan = seen.updates.find((n) => n.update.sessionUpdate === "plan");
    assert.deepEqual(plan.update.entries, [
      { content: "Read the code", priority: "medium", status: "completed" },
      { content: "Fix it", priority: "medium", status: "in_progress" },
    ]);
    const think = seen.updates.find((n) => n.update.sessionUpdate === "tool_call");
    assert.equal(think.update.kind, "think");

    await ctx.request("session/set_mode", { sessionId, modeId: "plan" });
    const modeUpdate = seen.updates.find((n) => n.update.sessionUpdate === "current_mode_update");
    assert.equal(modeUpdate.update.currentModeId, "plan");
    await assert.rejects(ctx.request("session/set_mode", { sessionId, modeId: "nonsense" }), (e) => e.code === -32602);

    const config = await ctx.request("session/set_config_option", { sessionId, configId: "model", value: "mock-2" });
    assert.equal(config.configOptions.find((o) => o.id === "model").currentValue, "mock-2");
    assert.equal(config.configOptions.find((o) => o.id === "mode").currentValue, "plan");
    await assert.rejects(ctx.request("session/set_config_option", { sessionId, configId: "model", value: "gpt-none" }), (e) => e.code === -32602);

    const other = await ctx.request("session/new", { cwd: env.home, mcpServers: [] });
    const listed = await ctx.request("session/list", { cwd: env.workspace });
    assert.deepEqual(listed.sessions.map((s) => s.sessionId), [sessionId]);
    assert.equal(listed.sessions[0].cwd, env.workspace);
    assert.equal(listed.sessions[0].title, "First question");
    const all = await ctx.request("session/list", {});
    assert.ok(all.sessions.some((s) => s.sessionId === other.sessionId));
  });

  // A new connection (another editor window) loads the session: the
  // history comes back as updates, in order, before the answer.
  await withAgent(env, async (ctx, seen) => {
    await initialize(ctx);
    const loaded = await ctx.request("session/load", { sessionId, cwd: env.workspace, mcpServers: [] });
    assert.equal(loaded.modes.currentModeId, "plan");
    assert.equal(loaded.configOptions.find((o) => o.id === "model").currentValue, "mock-2");
    const replay = seen.updates
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate !== "available_commands_update")
      .map((n) => n.update);
    assert.deepEqual(
      replay.map((u) => u.sessionUpdate),
      ["user_message_chunk", "agent_message_chunk", "user_message_chunk", "tool_call", "plan", "agent_message_chunk"],
    );
    assert.equal(replay[0].content.text, "First question");
    assert.equal(replay[1].content.text, "First answer.");
    assert.equal(replay[2].content.text, "Make a plan");
    assert.equal(replay[3].status, "completed");
    assert.equal(replay[5].content.text, "Planned.");

    const resumed = await ctx.request("session/resume", { sessionId, cwd: env.workspace, mcpServers: [] });
    assert.equal(resumed.modes.currentModeId, "plan");
    assert.deepEqual(await ctx.request("session/close", { sessionId }), {});
    await assert.rejects(ctx.request("session/load", { sessionId: "thr_00000000deadbeef", cwd: env.workspace, mcpServers: [] }), (e) => e.code === -32002);
  });
});
