// Starts the real codewhale binary and the scripted mock provider for one
// test: each runtime has its own $CODEWHALE_HOME, workspace and provider.
// Paths come from CODEWHALE_BIN and MOCK_PROVIDER_BIN (default: the
// release builds of this repository).

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const CODEWHALE_BIN = resolve(packageRoot, process.env.CODEWHALE_BIN ?? "../../target/release/codewhale");
export const MOCK_PROVIDER_BIN = resolve(packageRoot, process.env.MOCK_PROVIDER_BIN ?? "../../target/release/mock-provider");

/** The models the mock provider serves; mock-large is priced. */
export const MOCK_MODELS = ["mock-large", "mock-small"];

/**
 * Spawns `program`, resolves with its first stdout line, and keeps reading
 * both pipes for the life of the process (a server whose pipe closes fails
 * its next log write).
 */
async function launch(program, args, options) {
  if (!existsSync(program)) {
    throw new Error(`${program} is missing: build it (cargo build --release) or set CODEWHALE_BIN / MOCK_PROVIDER_BIN`);
  }
  const child = spawn(program, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let stdout = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
    if (stderr.length > 1_000_000) stderr = stderr.slice(-500_000);
  });
  const lines = createInterface({ input: child.stdout });
  const firstLine = await new Promise((resolveLine, reject) => {
    lines.once("line", resolveLine);
    child.once("error", reject);
    child.once("exit", (code, signal) => reject(new Error(`${program} exited (${code ?? signal}) before printing its URL:\n${stderr}`)));
  });
  lines.on("line", (line) => (stdout += line + "\n"));
  return { child, firstLine: firstLine.trim(), logs: () => stderr, stdout: () => stdout };
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGINT");
  const late = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(late);
}

function mockClient(url) {
  const control = async (method, path, body) => {
    const response = await fetch(url + path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`mock ${method} ${path}: ${response.status} ${await response.text()}`);
    return response;
  };
  return {
    url,
    /** Queues replies; each model request consumes the next one. */
    push: async (...replies) => void (await control("POST", "/__mock/replies", replies)),
    /** Every request body the provider received, oldest first. */
    requests: async () => (await control("GET", "/__mock/requests")).json(),
    reset: async () => void (await control("POST", "/__mock/reset")),
  };
}

/**
 * Starts a mock provider and `codewhale app-server --http` (plus `--mobile
 * --host 127.0.0.1` when asked) with a fresh home and workspace. Register
 * `runtime.stop` with `t.after`.
 */
export async function startRuntime({ mobile = false } = {}) {
  const home = mkdtempSync(join(tmpdir(), "codewhale-sdk-home-"));
  const workspace = mkdtempSync(join(tmpdir(), "codewhale-sdk-workspace-"));
  const started = [];
  const cleanup = async () => {
    for (const child of started.reverse()) await stop(child);
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  };
  try {
    const mock = await launch(MOCK_PROVIDER_BIN, [], {});
    started.push(mock.child);
    writeFileSync(
      join(home, "config.toml"),
      [
        `default_provider = "mock"`,
        ``,
        `[providers.mock]`,
        `base_url = ${JSON.stringify(mock.firstLine)}`,
        `models = ${JSON.stringify(MOCK_MODELS)}`,
        ``,
        `[pricing.mock-large]`,
        `input = 1.0`,
        `output = 2.0`,
        ``,
      ].join("\n"),
    );
    const token = randomBytes(24).toString("hex");
    const env = { ...process.env, CODEWHALE_HOME: home };
    const serve = (port) =>
      launch(
        CODEWHALE_BIN,
        mobile
          ? ["app-server", "--mobile", "--host", "127.0.0.1", "--port", String(port), "--auth-token", token]
          : ["app-server", "--http", "--port", String(port), "--auth-token", token],
        { cwd: workspace, env },
      );
    let server = await serve(0);
    started.push(server.child);
    const url = new URL(server.firstLine).origin;
    return {
      url,
      token,
      home,
      workspace,
      mock: mockClient(mock.firstLine),
      logs: () => server.logs(),
      /** Stops the server and starts it again on the same port and home. */
      restart: async () => {
        await stop(server.child);
        server = await serve(new URL(url).port);
        started.push(server.child);
      },
      stop: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
