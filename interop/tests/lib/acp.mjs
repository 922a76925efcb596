// What the ACP interop tests share: the mock provider (started once per
// test file), a fresh home per test, scripted model replies, and
// `codewhale acp` driven by the official client SDK.

import { before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";

export const CODEWHALE_BIN = process.env.CODEWHALE_BIN;
export const MOCK_PROVIDER_BIN = process.env.MOCK_PROVIDER_BIN;

export const mock = {}; // { child, url } once started
const homes = [];

/** Starts the mock provider before the file's tests, and cleans up after. */
export function useMock() {
  before(async () => {
    assert.ok(CODEWHALE_BIN && MOCK_PROVIDER_BIN, "CODEWHALE_BIN and MOCK_PROVIDER_BIN must be set");
    const child = spawn(MOCK_PROVIDER_BIN, ["0"], { stdio: ["ignore", "pipe", "inherit"] });
    mock.url = await new Promise((resolve, reject) => {
      let buffered = "";
      child.stdout.on("data", (chunk) => {
        buffered += chunk;
        const newline = buffered.indexOf("\n");
        if (newline >= 0) resolve(buffered.slice(0, newline).trim());
      });
      child.on("exit", (code) => reject(new Error(`mock-provider exited ${code}`)));
    });
    mock.child = child;
  });
  after(() => {
    mock.child?.kill();
    for (const dir of homes) rmSync(dir, { recursive: true, force: true });
  });
}

/** The model requests the mock received, oldest first. */
export const modelRequests = async () => (await fetch(`${mock.url}/__mock/requests`)).json();

/** A fresh home whose config points at the mock provider, and a workspace. */
export async function setup() {
  // Tests run one after another on one mock: forget what a failed one left.
  assert.equal((await fetch(`${mock.url}/__mock/reset`, { method: "POST" })).status, 204);
  const root = mkdtempSync(join(tmpdir(), "codewhale-acp-"));
  homes.push(root);
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(home);
  mkdirSync(workspace);
  writeFileSync(
    join(home, "config.toml"),
    `default_provider = "mock"\n[providers.mock]\nbase_url = "${mock.url}"\nmodels = ["mock-1", "mock-2"]\n`,
  );
  return { home, workspace };
}

/** Appends scripted replies; each model call consumes the next one. */
export async function script(...replies) {
  const response = await fetch(`${mock.url}/__mock/replies`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(replies),
  });
  assert.equal(response.status, 204);
}

export const text = (parts, delay_ms = 0, reason = "stop") => ({
  type: "stream",
  delay_ms,
  chunks: [
    ...parts.map((t) => ({ kind: "text", text: t })),
    { kind: "finish", reason },
    { kind: "usage", prompt_tokens: 120, completion_tokens: 30 },
  ],
});

export const toolCall = (id, name, args) => ({
  type: "stream",
  chunks: [
    { kind: "tool_call", index: 0, id, name, arguments: JSON.stringify(args) },
    { kind: "finish", reason: "tool_calls" },
  ],
});

/**
 * Runs `codewhale acp` in `workspace` and the SDK client against it; `body`
 * gets the client context and what the agent sent. Permission requests are
 * answered with `seen.answer` (an option id) or left to `onPermission`;
 * `handlers` answer other client methods (fs/*, terminal/*) by name, and
 * `env` adds to the agent's environment.
 */
export async function withAgent({ home, workspace }, body, { onPermission, handlers = {}, env = {} } = {}) {
  const agent = spawn(CODEWHALE_BIN, ["acp", "--workspace", workspace], {
    env: { ...process.env, CODEWHALE_HOME: home, RUST_LOG: "error", ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const seen = { updates: [], permissions: [], answer: "allow_once" };
  const stream = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
  let app = client({ name: "codewhale-interop" });
  for (const [method, handler] of Object.entries(handlers)) app = app.onRequest(method, handler);
  app = app
    .onNotification("session/update", ({ params }) => {
      seen.updates.push(params);
    })
    .onRequest("session/request_permission", async ({ params, signal }) => {
      seen.permissions.push(params);
      if (onPermission) return onPermission(params, signal);
      return { outcome: { outcome: "selected", optionId: seen.answer } };
    });
  try {
    return await app.connectWith(stream, (ctx) => body(ctx, seen));
  } finally {
    agent.stdin.end();
    const exited = once(agent, "exit");
    const timer = setTimeout(() => agent.kill(), 5000);
    await exited;
    clearTimeout(timer);
  }
}

export const initialize = (ctx, clientCapabilities = { fs: { readTextFile: false, writeTextFile: false }, terminal: false }) =>
  ctx.request("initialize", { protocolVersion: 1, clientCapabilities });

const kinds = (updates) => updates.map((n) => n.update.sessionUpdate);
const chunks = (updates, kind) =>
  updates.filter((n) => n.update.sessionUpdate === kind).map((n) => n.update.content.text).join("");

