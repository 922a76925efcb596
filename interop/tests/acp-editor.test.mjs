// `codewhale acp` with what an editor brings: its buffers and terminals
// (fs/*, terminal/* answered by the official SDK client here) and the MCP
// servers it passes in session/new (the real `server-everything` from npm,
// over stdio and over streamable HTTP).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RequestError } from "@agentclientprotocol/sdk";
import { useMock, setup, script, text, toolCall, withAgent, initialize, modelRequests } from "./lib/acp.mjs";

useMock();

const EDITOR = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };
const here = dirname(fileURLToPath(import.meta.url));
const everything = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

/** What the model was told for each tool call of its last request. */
async function toolResults() {
  const last = (await modelRequests()).at(-1);
  return Object.fromEntries(last.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]));
}

/** An editor: buffers over the disk, real terminals, and a log of what it was asked. */
function editor(workspace) {
  const log = { reads: [], writes: [], created: [], released: [] };
  const buffers = new Map();
  const terminals = new Map();
  const handlers = {
    "fs/read_text_file": async ({ params }) => {
      log.reads.push(params.path);
      if (buffers.has(params.path)) return { content: buffers.get(params.path) };
      if (!existsSync(params.path)) throw RequestError.invalidParams({ path: params.path }, "no such file");
      return { content: readFileSync(params.path, "utf8") };
    },
    "fs/write_text_file": async ({ params }) => {
      log.writes.push(params.path);
      buffers.set(params.path, params.content);
      return {};
    },
    "terminal/create": async ({ params }) => {
      const id = `term-${terminals.size}`;
      log.created.push(params);
      const child = spawn(params.command, params.args, { cwd: params.cwd });
      const terminal = { output: "", status: null };
      child.stdout.on("data", (d) => (terminal.output += d));
      child.stderr.on("data", (d) => (terminal.output += d));
      terminal.exited = new Promise((resolve) =>
        child.on("exit", (exitCode, signal) => resolve((terminal.status = { exitCode, signal }))),
      );
      terminal.child = child;
      terminals.set(id, terminal);
      return { terminalId: id };
    },
    "terminal/wait_for_exit": async ({ params }) => terminals.get(params.terminalId).exited,
    "terminal/output": async ({ params }) => {
      const t = terminals.get(params.terminalId);
      return { output: t.output, truncated: false, exitStatus: t.status };
    },
    "terminal/kill": async ({ params }) => {
      terminals.get(params.terminalId).child.kill("SIGKILL");
      return {};
    },
    "terminal/release": async ({ params }) => {
      log.released.push(params.terminalId);
      terminals.get(params.terminalId)?.child.kill("SIGKILL");
      return {};
    },
  };
  return { log, buffers, handlers, notes: join(workspace, "notes.txt") };
}

test("an editor's buffers and terminal serve the turn; paths outside the workspace never reach it", async () => {
  const env = await setup();
  writeFileSync(join(env.workspace, "notes.txt"), "on disk\n");
  writeFileSync(join(env.workspace, "..", "outside.txt"), "not for the model\n");
  await script(
    toolCall("call_read", "read_file", { path: "notes.txt" }),
    toolCall("call_escape", "read_file", { path: "../outside.txt" }),
    toolCall("call_edit", "edit_file", { path: "notes.txt", old_string: "unsaved", new_string: "edited" }),
    toolCall("call_new", "write_file", { path: "sub/new.txt", content: "fresh\n" }),
    toolCall("call_shell", "exec_shell", { command: "echo from-the-terminal; exit 3" }),
    text(["Done."]),
  );
  const ed = editor(env.workspace);
  ed.buffers.set(ed.notes, "unsaved buffer\n");
  await withAgent(
    env,
    async (ctx, seen) => {
      await initialize(ctx, EDITOR);
      const { sessionId } = await ctx.request("session/new", { cwd: env.workspace, mcpServers: [] });
      const answer = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Work in my editor." }] });
      assert.equal(answer.stopReason, "end_turn");

      const results = await toolResults();
      assert.match(results.call_read, /1\tunsaved buffer/, "the model read the unsaved buffer, not the disk");
      assert.match(results.call_escape, /outside|escape|not allowed|workspace/i);
      assert.ok(!ed.log.reads.some((p) => p.endsWith("outside.txt")), "a path outside the workspace reached the editor");
      assert.match(results.call_edit, /1 line\(s\) added, 1 removed/);
      assert.equal(ed.buffers.get(ed.notes), "edited buffer\n");
      assert.equal(readFileSync(ed.notes, "utf8"), "on disk\n", "the edit went to the buffer, not the disk");
      assert.ok(ed.log.writes.includes(join(env.workspace, "sub/new.txt")));
      assert.equal(ed.buffers.get(join(env.workspace, "sub/new.txt")), "fresh\n");

      assert.match(results.call_shell, /from-the-terminal/);
      assert.match(results.call_shell, /\[exit code 3\]/);
      assert.equal(ed.log.created.length, 1);
      assert.equal(ed.log.created[0].command, "sh");
      assert.deepEqual(ed.log.created[0].args, ["-c", "echo from-the-terminal; exit 3"]);
      assert.equal(ed.log.created[0].cwd, env.workspace);
      assert.deepEqual(ed.log.released, ["term-0"], "the agent released its terminal");

      // The terminal is shown inside the shell's tool call, live and at its end.
      const shell = seen.updates.find((n) => n.update.sessionUpdate === "tool_call" && n.update.kind === "execute");
      const shown = seen.updates.filter(
        (n) => n.update.toolCallId === shell.update.toolCallId && n.update.content?.some((c) => c.type === "terminal"),
      );
      assert.ok(shown.length >= 1);
      assert.deepEqual(shown[0].update.content, [{ type: "terminal", terminalId: "term-0" }]);
      assert.equal(seen.permissions.length, 3, "edit, write and shell were asked for");
    },
    { handlers: ed.handlers },
  );
});

test("without fs and terminal capabilities the runtime's own tools run on disk", async () => {
  const env = await setup();
  writeFileSync(join(env.workspace, "notes.txt"), "on disk\n");
  await script(toolCall("call_read", "read_file", { path: "notes.txt" }), text(["Read."]));
  const ed = editor(env.workspace);
  await withAgent(
    env,
    async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await ctx.request("session/new", { cwd: env.workspace, mcpServers: [] });
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Read it." }] });
      assert.match((await toolResults()).call_read, /1\ton disk/);
      assert.deepEqual(ed.log.reads, []);
    },
    { handlers: ed.handlers },
  );
});

/** A free loopback port. */
async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** server-everything over streamable HTTP, on loopback only. */
async function httpServer() {
  const port = await freePort();
  const loopback = pathToFileURL(join(here, "lib/loopback.mjs")).href;
  const child = spawn(process.execPath, ["--import", loopback, everything, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise((resolve, reject) => {
    let said = "";
    child.stderr.on("data", (d) => {
      said += d;
      if (said.includes("listening")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`server-everything exited ${code}: ${said}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}

test("MCP servers from session/new (stdio and HTTP) offer their tools; only read-only ones run unasked", async () => {
  const env = await setup();
  const web = await httpServer();
  try {
    await script(
      toolCall("call_env", "mcp__everything__get-env", {}),
      toolCall("call_echo", "mcp__web__echo", { message: "over http" }),
      toolCall("call_toggle", "mcp__everything__toggle-simulated-logging", {}),
      text(["Done."]),
    );
    await withAgent(
      env,
      async (ctx, seen) => {
        const init = await initialize(ctx);
        assert.equal(init.agentCapabilities.mcpCapabilities.http, true);
        const { sessionId } = await ctx.request("session/new", {
          cwd: env.workspace,
          mcpServers: [
            { name: "everything", command: process.execPath, args: [everything, "stdio"], env: [{ name: "PASSED_BY_EDITOR", value: "yes" }] },
            { type: "http", name: "web", url: web.url, headers: [] },
            { name: "broken", command: join(env.workspace, "no-such-server"), args: [], env: [] },
          ],
        });
        seen.answer = "reject_once";
        const answer = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Use the MCP tools." }] });
        assert.equal(answer.stopReason, "end_turn");

        const first = (await modelRequests()).at(-4);
        const offered = first.tools.map((t) => t.function.name);
        for (const name of ["mcp__everything__echo", "mcp__everything__get-env", "mcp__web__echo", "read_file"]) {
          assert.ok(offered.includes(name), `${name} was not offered: ${offered}`);
        }
        assert.ok(!offered.some((n) => n.startsWith("mcp__broken")));

        const results = await toolResults();
        const childEnv = JSON.parse(results.call_env);
        assert.equal(childEnv.PASSED_BY_EDITOR, "yes");
        assert.equal(childEnv.INTEROP_API_KEY, undefined, "a secret of the agent's environment reached an MCP server");
        assert.equal(childEnv.CODEWHALE_HOME, undefined);
        assert.match(results.call_echo, /over http/);
        assert.match(results.call_toggle, /denied/);
        assert.equal(seen.permissions.length, 1, "only the tool that changes something was asked for");
        assert.match(seen.permissions[0].toolCall.title, /toggle-simulated-logging/);
      },
      { env: { INTEROP_API_KEY: "do-not-leak" } },
    );
  } finally {
    web.child.kill();
  }
});

test("the agent's questions arrive as an elicitation form and the answers reach the model", async () => {
  const env = await setup();
  const questions = [
    { id: "color", header: "Color", question: "Which color?", options: [{ label: "red" }, { label: "blue" }] },
    { id: "name", header: "Name", question: "What name?", options: [], allow_free_text: true },
  ];
  await script(
    toolCall("call_ask", "request_user_input", { questions }),
    text(["Thanks."]),
    toolCall("call_again", "request_user_input", { questions }),
    text(["Fine, no answers."]),
  );
  const forms = [];
  await withAgent(
    env,
    async (ctx) => {
      await initialize(ctx, { fs: { readTextFile: false, writeTextFile: false }, terminal: false, elicitation: { form: {} } });
      const { sessionId } = await ctx.request("session/new", { cwd: env.workspace, mcpServers: [] });
      const answer = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Ask me." }] });
      assert.equal(answer.stopReason, "end_turn");
      assert.equal(forms.length, 1);
      assert.equal(forms[0].sessionId, sessionId);
      assert.equal(forms[0].mode, "form");
      assert.deepEqual(forms[0].requestedSchema.required, ["color", "name"]);
      assert.deepEqual(forms[0].requestedSchema.properties.color.oneOf.map((o) => o.const), ["red", "blue"]);
      const told = (await toolResults()).call_ask;
      assert.match(told, /Which color\?: blue/);
      assert.match(told, /What name\?: Ada/);

      // Declined: the question ends at once and the turn goes on without answers.
      const second = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Ask again." }] });
      assert.equal(second.stopReason, "end_turn");
      assert.equal(forms.length, 2);
      assert.match((await toolResults()).call_again, /canceled/);
    },
    {
      handlers: {
        "elicitation/create": async ({ params }) => {
          forms.push(params);
          if (forms.length > 1) return { action: "decline" };
          return { action: "accept", content: { color: "blue", name: "Ada" } };
        },
      },
    },
  );
});
