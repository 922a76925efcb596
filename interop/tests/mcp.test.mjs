// `codewhale serve --mcp` driven by the official MCP client
// (@modelcontextprotocol/sdk: Client + StdioClientTransport). Each test
// starts the real binary with its own $CODEWHALE_HOME on a temporary git
// repository; the agent test also starts the scripted mock provider.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

const CODEWHALE_BIN = resolve(process.env.CODEWHALE_BIN ?? "../target/release/codewhale");
const MOCK_PROVIDER_BIN = resolve(process.env.MOCK_PROVIDER_BIN ?? "../target/release/mock-provider");
const READ_TOOLS = ["file_search", "git_diff", "git_status", "grep_files", "list_dir", "read_file"];
const SECRET = "outside-secret-3b9f";

function temp(t, prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A git repository with a commit, an edit, an untracked and an ignored file, and links out. */
function workspace(t) {
  const outside = temp(t, "codewhale-mcp-outside-");
  writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
  const dir = temp(t, "codewhale-mcp-ws-");
  const git = (...args) => execFileSync("git", args, { cwd: dir, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "t");
  writeFileSync(join(dir, "notes.md"), "first line\nold line\nthird line\n");
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "lib.rs"), "pub fn needle_fn() {}\n");
  writeFileSync(join(dir, ".gitignore"), "ignored.log\n");
  git("add", "-A");
  git("commit", "-q", "-m", "init");
  writeFileSync(join(dir, "notes.md"), "first line\nnew line\nthird line\n");
  writeFileSync(join(dir, "untracked.txt"), "fresh\n");
  writeFileSync(join(dir, "ignored.log"), "needle_fn in an ignored file\n");
  symlinkSync(join(outside, "secret.txt"), join(dir, "link-out.txt"));
  symlinkSync(outside, join(dir, "dir-out"));
  return { dir, outside };
}

async function connect(t, dir, { allowAgent = false, home } = {}) {
  home ??= temp(t, "codewhale-mcp-home-");
  const args = ["serve", "--mcp", "--workspace", dir, ...(allowAgent ? ["--allow-agent"] : [])];
  const transport = new StdioClientTransport({
    command: CODEWHALE_BIN,
    args,
    env: { CODEWHALE_HOME: home, RUST_LOG: "warn" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr += chunk));
  const client = new Client({ name: "codewhale-interop", version: "1.0.0" });
  await client.connect(transport);
  t.after(() => client.close());
  return { client, home, stderr: () => stderr };
}

const text = (result) => result.content.map((c) => c.text).join("\n");

async function refusedParams(promise, pattern) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, ErrorCode.InvalidParams, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

test("lists exactly the read-only tools, with the model's schemas, as codewhale", async (t) => {
  const { dir } = workspace(t);
  const { client } = await connect(t, dir);
  assert.equal(client.getServerVersion().name, "codewhale");
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), READ_TOOLS);
  const read = tools.find((tool) => tool.name === "read_file");
  assert.deepEqual(read.inputSchema.required, ["path"]);
  assert.deepEqual(Object.keys(read.inputSchema.properties).sort(), ["end_line", "path", "start_line"]);
  assert.ok(tools.every((tool) => tool.annotations?.readOnlyHint === true));
});

test("each tool answers with the workspace's real content", async (t) => {
  const { dir } = workspace(t);
  const { client } = await connect(t, dir);
  const call = async (name, args = {}) => {
    const result = await client.callTool({ name, arguments: args });
    assert.notEqual(result.isError, true, `${name}: ${text(result)}`);
    return text(result);
  };
  assert.match(await call("read_file", { path: "notes.md" }), /^\s+1\tfirst line\n\s+2\tnew line\n\s+3\tthird line\n$/);
  assert.equal((await call("read_file", { path: "notes.md", start_line: 2, end_line: 2 })).trim(), "2\tnew line");
  const listing = (await call("list_dir", {})).split("\n");
  for (const entry of ["notes.md", "src/", "untracked.txt", ".gitignore"]) assert.ok(listing.includes(entry), listing.join(","));
  assert.match(await call("list_dir", { path: "src" }), /^lib\.rs$/);
  const grep = await call("grep_files", { pattern: "needle_fn" });
  assert.match(grep, /src\/lib\.rs/);
  assert.doesNotMatch(grep, /ignored\.log/, "grep_files honours .gitignore");
  assert.match(await call("file_search", { pattern: "**/*.rs" }), /src\/lib\.rs/);
  const status = await call("git_status");
  assert.match(status, /## main/);
  assert.match(status, / M notes\.md/);
  assert.match(status, /\?\? untracked\.txt/);
  const diff = await call("git_diff", { path: "notes.md" });
  assert.match(diff, /^-old line$/m);
  assert.match(diff, /^\+new line$/m);
  assert.equal(await call("git_diff", { staged: true }), "no changes");
});

test("paths outside the workspace are tool errors, never their content", async (t) => {
  const { dir, outside } = workspace(t);
  const { client } = await connect(t, dir);
  const attempts = [
    ["read_file", { path: "../secret.txt" }],
    ["read_file", { path: join(outside, "secret.txt") }],
    ["read_file", { path: "link-out.txt" }],
    ["read_file", { path: "dir-out/secret.txt" }],
    ["list_dir", { path: ".." }],
    ["list_dir", { path: outside }],
    ["list_dir", { path: "dir-out" }],
    ["grep_files", { pattern: "outside", path: outside }],
    ["git_diff", { path: "../secret.txt" }],
  ];
  for (const [name, args] of attempts) {
    const result = await client.callTool({ name, arguments: args });
    assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}: ${text(result)}`);
    assert.match(text(result), /outside the workspace/, `${name} ${JSON.stringify(args)}`);
    assert.ok(!text(result).includes(SECRET));
  }
  // The server is still there.
  const ok = await client.callTool({ name: "read_file", arguments: { path: "notes.md" } });
  assert.notEqual(ok.isError, true);
});

test("bad arguments and tools not offered are invalid params", async (t) => {
  const { dir } = workspace(t);
  const { client } = await connect(t, dir);
  await refusedParams(client.callTool({ name: "read_file", arguments: {} }), /path/);
  await refusedParams(client.callTool({ name: "read_file", arguments: { path: 3 } }), /string/);
  await refusedParams(client.callTool({ name: "read_file", arguments: { path: "notes.md", start_line: "2" } }));
  await refusedParams(client.callTool({ name: "list_dir", arguments: { dir: "src" } }), /unknown argument/);
  await refusedParams(client.callTool({ name: "write_file", arguments: { path: "x", content: "y" } }), /unknown tool/);
  await refusedParams(client.callTool({ name: "codewhale_run", arguments: { prompt: "hi" } }), /--allow-agent/);
  assert.ok(!existsSync(join(dir, "x")));
});

/** The mock provider (mock-provider/): its URL and its scripting. */
async function mockProvider(t) {
  const child = spawn(MOCK_PROVIDER_BIN, [], { stdio: ["ignore", "pipe", "pipe"] });
  t.after(() => child.kill("SIGKILL"));
  const url = await new Promise((done, fail) => {
    createInterface({ input: child.stdout }).once("line", (line) => done(line.trim()));
    child.once("exit", (code) => fail(new Error(`mock-provider exited ${code}`)));
  });
  const control = async (method, path, body) => {
    const response = await fetch(url + path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.ok(response.ok, `mock ${path}: ${response.status}`);
    return response;
  };
  return {
    url,
    push: async (...replies) => void (await control("POST", "/__mock/replies", replies)),
    requests: async () => (await control("GET", "/__mock/requests")).json(),
  };
}

const usage = { kind: "usage", prompt_tokens: 10, completion_tokens: 5 };
const reply = (...chunks) => ({ type: "stream", chunks: [...chunks, usage], delay_ms: 0 });
const answer = (words) => reply({ kind: "text", text: words }, { kind: "finish", reason: "stop" });
const toolCall = (name, args) =>
  reply({ kind: "tool_call", index: 0, id: `call_${name}`, name, arguments: JSON.stringify(args) }, { kind: "finish", reason: "tool_calls" });

test("with --allow-agent, codewhale_run runs a turn, continues its thread, and denies writes", async (t) => {
  const { dir } = workspace(t);
  const mock = await mockProvider(t);
  const home = temp(t, "codewhale-mcp-home-");
  writeFileSync(
    join(home, "config.toml"),
    `default_provider = "mock"\n\n[providers.mock]\nbase_url = ${JSON.stringify(mock.url)}\nmodels = ["mock-1"]\n`,
  );
  const { client, stderr } = await connect(t, dir, { allowAgent: true, home });
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [...READ_TOOLS, "codewhale_run"].sort());
  const run = tools.find((tool) => tool.name === "codewhale_run");
  assert.match(run.description, /denied/);

  await mock.push(answer("The answer is 42."));
  const first = await client.callTool({ name: "codewhale_run", arguments: { prompt: "What is the answer?" } });
  assert.notEqual(first.isError, true, text(first) + stderr());
  assert.equal(first.content[0].text, "The answer is 42.");
  const { thread_id, turn_id, status } = first.structuredContent;
  assert.match(thread_id, /\S/);
  assert.match(turn_id, /\S/);
  assert.equal(status, "completed");

  // The same thread, asked to write: the write is denied, the turn still answers.
  await mock.push(toolCall("write_file", { path: "written.txt", content: "no" }), answer("I could not write it."));
  const second = await client.callTool({ name: "codewhale_run", arguments: { prompt: "Write a file", thread_id } });
  assert.notEqual(second.isError, true, text(second));
  assert.equal(second.structuredContent.thread_id, thread_id);
  assert.notEqual(second.structuredContent.turn_id, turn_id);
  assert.equal(second.content[0].text, "I could not write it.");
  assert.ok(!existsSync(join(dir, "written.txt")), "a headless write was allowed");
  const requests = await mock.requests();
  assert.equal(requests.length, 3);
  assert.ok(JSON.stringify(requests[1].messages).includes("The answer is 42."), "the thread's history was sent");

  const unknown = await client.callTool({ name: "codewhale_run", arguments: { prompt: "hi", thread_id: "thr_nope" } });
  assert.equal(unknown.isError, true);
  await refusedParams(client.callTool({ name: "codewhale_run", arguments: {} }), /prompt/);
});
