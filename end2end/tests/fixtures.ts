import { test as base, expect } from "@playwright/test";
import { spawn, ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

/** A running `codewhale web` process, started fresh for each test. */
export type Codewhale = {
  /** The one-time sign-in link the process printed. */
  launchUrl: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** Everything the process wrote to stderr so far. */
  logs: () => string;
};

const binary = process.env.CODEWHALE_BIN ?? resolve(__dirname, "../../target/release/codewhale");

async function start(): Promise<{ child: ChildProcess; server: Codewhale; home: string }> {
  const home = mkdtempSync(join(tmpdir(), "codewhale-e2e-"));
  const child = spawn(binary, ["web", "--no-open", "--port", "0"], {
    env: { ...process.env, CODEWHALE_HOME: home, RUST_LOG: "debug" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const firstLine = await new Promise<string>((resolveLine, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", resolveLine);
    child.once("exit", (code) => reject(new Error(`codewhale exited (${code}): ${stderr}`)));
  });
  const launchUrl = firstLine.trim();
  const origin = new URL(launchUrl).origin;
  return { child, home, server: { launchUrl, origin, logs: () => stderr } };
}

export const test = base.extend<{ codewhale: Codewhale }>({
  codewhale: async ({}, use) => {
    const { child, server, home } = await start();
    await use(server);
    child.kill("SIGINT");
    await new Promise((done) => (child.exitCode !== null ? done(null) : child.once("exit", done)));
    rmSync(home, { recursive: true, force: true });
  },
});

export { expect };
