// Runs the compiled example (dist/stream-turn.js) against the real binary
// and the scripted mock provider, as a user would run it, and checks what
// it printed and did. Binaries: CODEWHALE_BIN and MOCK_PROVIDER_BIN
// (default: the repository's release builds).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startRuntime } from "../../sdk/typescript/test/support/runtime.mjs";
import { slowText, toolCall } from "../../sdk/typescript/test/support/replies.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const example = join(here, "dist/stream-turn.js");

/** Runs the example to its end; resolves with its exit code and output. */
function run(env, ...args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [example, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr });
    });
  });
}

test("the example streams a turn and allows the write it asks for", async (t) => {
  assert.ok(existsSync(example), "build the example first: npm run build");
  const runtime = await startRuntime();
  t.after(() => runtime.stop());
  await runtime.mock.push(
    toolCall("write_file", { path: "HELLO.md", content: "# Hello\n" }),
    slowText(["I wrote ", "HELLO.md ", "for you."], 20),
  );
  const result = await run(
    { CODEWHALE_URL: runtime.url, CODEWHALE_TOKEN: runtime.token, CODEWHALE_APPROVE: "allow", CODEWHALE_WORKSPACE: runtime.workspace },
    "Write",
    "a hello file",
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "I wrote HELLO.md for you.\n");
  assert.match(result.stderr, /\[approval\] write_file: /);
  assert.match(result.stderr, /\[allowed\]/);
  assert.match(result.stderr, /\[turn completed: 200 tokens in, 40 out\]/);
  assert.equal(readFileSync(join(runtime.workspace, "HELLO.md"), "utf8"), "# Hello\n");
  // The prompt the example sent is what the model got.
  const first = (await runtime.mock.requests())[0];
  assert.equal(first.messages.at(-1).content, "Write a hello file");
});

test("the example denies by default when nobody is at a terminal", async (t) => {
  const runtime = await startRuntime();
  t.after(() => runtime.stop());
  await runtime.mock.push(toolCall("write_file", { path: "NOPE.md", content: "no\n" }), slowText(["Fine, ", "I will not."], 10));
  const result = await run({ CODEWHALE_URL: runtime.url, CODEWHALE_TOKEN: runtime.token, CODEWHALE_APPROVE: "" });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "Fine, I will not.\n");
  assert.match(result.stderr, /\[denied\]/);
  assert.equal(existsSync(join(runtime.workspace, "NOPE.md")), false);
});

test("the example says what is missing without a URL or token, and reports a refused token", async (t) => {
  const missing = await run({ CODEWHALE_URL: "", CODEWHALE_TOKEN: "" });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Set CODEWHALE_URL/);
  const runtime = await startRuntime();
  t.after(() => runtime.stop());
  const refused = await run({ CODEWHALE_URL: runtime.url, CODEWHALE_TOKEN: "wrong-token-000000000000" });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /codewhale said 401 \(unauthorized\): runtime API token is not valid/);
});
