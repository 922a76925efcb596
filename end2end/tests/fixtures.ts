import { test as base, expect, type Page } from "@playwright/test";
import { spawn, ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { apiFor, type Api } from "./support/api";
import type { Reply } from "./support/replies";

/** The scripted model provider that codewhale talks to (mock-provider/). */
export type MockProvider = {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Queues replies; each model request consumes the next one. */
  push: (...replies: Reply[]) => Promise<void>;
  /** Every request body the provider received, oldest first. */
  requests: () => Promise<any[]>;
  /** Forgets queued replies and recorded requests. */
  reset: () => Promise<void>;
};

/**
 * A running `codewhale web` process, started fresh for each test with its own
 * `$CODEWHALE_HOME`, workspace and mock provider (`default_provider = "mock"`,
 * models `mock-large` (the default, priced) and `mock-small`).
 */
export type Codewhale = {
  /** The one-time sign-in link the process printed. */
  launchUrl: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** Everything the process wrote to stderr so far. */
  logs: () => string;
  /** `$CODEWHALE_HOME` (holds config.toml and codewhale.db). */
  home: string;
  /** The process's working directory, where new threads run: empty, not a git repository. */
  workspace: string;
  mock: MockProvider;
  /**
   * Opens the sign-in link and waits until the session cookie is set and, in
   * a project with JavaScript on, the page has hydrated.
   */
  signIn: (page: Page) => Promise<void>;
  /** A /v1 call with `page`'s session cookie; returns `{ status, json }`. */
  api: Api;
};

/** A pairing link minted through /v1 (protocol `PairingCreated`). */
export type Pairing = {
  url: string;
  expires_at: string;
  label: string | null;
  qr_svg: string;
  tls_fingerprint: string | null;
};

/**
 * A running `codewhale app-server --mobile` on 127.0.0.1 (a secure context,
 * so notifications work), with a runtime token, the mock provider, its own
 * home and workspace.
 */
export type MobileCodewhale = {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** The runtime token (`--auth-token`). */
  token: string;
  /** The one-time desktop sign-in link printed after `workbench: `. */
  workbenchUrl: string;
  /** The first one-time pairing link printed after `pair: `. */
  firstPairingUrl: string;
  logs: () => string;
  workspace: string;
  mock: MockProvider;
  /** A /v1 call with the runtime token (not any page's cookie). */
  v1: <T = any>(method: string, path: string, body?: unknown) => Promise<{ status: number; json: T }>;
  /** Mints a fresh pairing link (`POST /v1/devices/pairings`). */
  mintPairing: (label?: string) => Promise<Pairing>;
  /**
   * Pairs `page` by opening a fresh pairing link, as a phone that scanned
   * the QR code would; waits for /mobile (and hydration with JavaScript on).
   */
  pair: (page: Page, label?: string) => Promise<void>;
  /** The desktop workbench, signed in with the printed link. */
  signInDesktop: (page: Page) => Promise<void>;
};

// Absolute: codewhale runs in the workspace, so a relative path would break.
const binary = resolve(process.env.CODEWHALE_BIN ?? join(__dirname, "../../target/release/codewhale"));
const mockBinary = resolve(
  process.env.MOCK_PROVIDER_BIN ?? join(__dirname, "../../target/release/mock-provider"),
);

export const MOCK_MODELS = ["mock-large", "mock-small"];
/** USD per million tokens of mock-large (mock-small is free). */
export const MOCK_LARGE_PRICE = { input: 1.0, output: 2.0 };

type Running = { child: ChildProcess; stderr: () => string; firstLine: string };

/** Spawns `program` and waits for the first line it prints on stdout. */
async function launch(
  program: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<Running> {
  if (!existsSync(program)) {
    throw new Error(`${program} is missing: build it first (see scripts/test)`);
  }
  const child = spawn(program, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const firstLine = await new Promise<string>((resolveLine, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", resolveLine);
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${program} exited (${code}): ${stderr}`)));
  });
  return { child, firstLine: firstLine.trim(), stderr: () => stderr };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGINT");
  const late = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(late);
}

function mockClient(url: string): MockProvider {
  const control = async (method: string, path: string, body?: unknown) => {
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
    push: async (...replies) => void (await control("POST", "/__mock/replies", replies)),
    requests: async () => (await control("GET", "/__mock/requests")).json(),
    reset: async () => void (await control("POST", "/__mock/reset")),
  };
}

function config(mockUrl: string, withProvider: boolean): string {
  if (!withProvider) return "";
  return [
    `default_provider = "mock"`,
    ``,
    `[providers.mock]`,
    `base_url = ${JSON.stringify(mockUrl)}`,
    `models = ${JSON.stringify(MOCK_MODELS)}`,
    ``,
    `[pricing.mock-large]`,
    `input = ${MOCK_LARGE_PRICE.input.toFixed(1)}`,
    `output = ${MOCK_LARGE_PRICE.output.toFixed(1)}`,
    ``,
  ].join("\n");
}

/**
 * A panic in a request's task drops its connection (the browser sees an
 * empty response, not an error page), so a test could pass around one: any
 * panic the server logged fails the test.
 */
function refusePanics(logs: string) {
  const at = logs.indexOf("panicked at");
  if (at >= 0) {
    const start = logs.lastIndexOf("\n", at) + 1;
    throw new Error(`codewhale panicked:\n${logs.slice(start, start + 2000)}`);
  }
}

/** Waits until the process's stderr has a line starting with `prefix`. */
async function stderrLine(running: Running, prefix: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = running
      .stderr()
      .split("\n")
      .find((l) => l.startsWith(prefix));
    if (line) return line.slice(prefix.length).trim();
    if (Date.now() > deadline) throw new Error(`no "${prefix}" line on stderr:\n${running.stderr()}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

export const test = base.extend<{ codewhale: Codewhale; mobile: MobileCodewhale; withProvider: boolean; extraConfig: string }>({
  /** `false`: codewhale starts with no provider configured and no API keys. */
  withProvider: [true, { option: true }],
  /** More config.toml for the workbench's server (appended as is). */
  extraConfig: ["", { option: true }],
  codewhale: async ({ withProvider, extraConfig }, use, testInfo) => {
    const home = mkdtempSync(join(tmpdir(), "codewhale-e2e-"));
    const workspace = mkdtempSync(join(tmpdir(), "codewhale-e2e-workspace-"));
    const started: ChildProcess[] = [];
    let logs = () => "";
    let failed = false;
    try {
      const mock = await launch(mockBinary, [], {});
      started.push(mock.child);
      writeFileSync(join(home, "config.toml"), config(mock.firstLine, withProvider) + extraConfig);
      const env: NodeJS.ProcessEnv = { ...process.env, CODEWHALE_HOME: home, RUST_LOG: "debug" };
      if (!withProvider) for (const key of Object.keys(env)) if (key.endsWith("_API_KEY")) delete env[key];
      const server = await launch(binary, ["web", "--no-open", "--port", "0"], { cwd: workspace, env });
      started.push(server.child);
      logs = server.stderr;
      const launchUrl = server.firstLine;
      const origin = new URL(launchUrl).origin;
      const hydrates = testInfo.project.use.javaScriptEnabled !== false;
      await use({
        launchUrl,
        origin,
        logs,
        home,
        workspace,
        mock: mockClient(mock.firstLine),
        api: apiFor(origin),
        signIn: async (page) => {
          await page.goto(launchUrl);
          await expect(page).toHaveURL(origin + "/");
          const cookies = await page.context().cookies(origin);
          if (!cookies.some((c) => c.name === "codewhale_web_session")) {
            throw new Error(`sign-in set no session cookie; codewhale said:\n${logs()}`);
          }
          if (hydrates) await page.locator("html[data-hydrated]").waitFor();
        },
      });
      refusePanics(logs());
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      // The server's log explains most failures: keep it with the report.
      if ((failed || testInfo.status !== testInfo.expectedStatus) && logs()) {
        await testInfo.attach("codewhale.log", { body: logs(), contentType: "text/plain" });
      }
      for (const child of started.reverse()) await stop(child);
      rmSync(home, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    }
  },
  mobile: async ({}, use, testInfo) => {
    const home = mkdtempSync(join(tmpdir(), "codewhale-e2e-mobile-"));
    const workspace = mkdtempSync(join(tmpdir(), "codewhale-e2e-workspace-"));
    const started: ChildProcess[] = [];
    let logs = () => "";
    let failed = false;
    try {
      const mock = await launch(mockBinary, [], {});
      started.push(mock.child);
      writeFileSync(join(home, "config.toml"), config(mock.firstLine, true));
      const token = randomBytes(24).toString("hex");
      const env: NodeJS.ProcessEnv = { ...process.env, CODEWHALE_HOME: home, RUST_LOG: "debug" };
      const args = ["app-server", "--mobile", "--host", "127.0.0.1", "--port", "0", "--auth-token", token];
      const server = await launch(binary, args, { cwd: workspace, env });
      started.push(server.child);
      logs = server.stderr;
      const origin = new URL(server.firstLine).origin;
      const workbenchUrl = await stderrLine(server, "workbench: ");
      const firstPairingUrl = await stderrLine(server, "pair: ");
      const hydrates = testInfo.project.use.javaScriptEnabled !== false;
      const v1 = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(origin + path, {
          method,
          headers: {
            Authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "Content-Type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, json: text ? JSON.parse(text) : null };
      };
      const mintPairing = async (label?: string) => {
        const { status, json } = await v1("POST", "/v1/devices/pairings", { ttl_seconds: 300, label: label ?? null });
        expect(status, JSON.stringify(json)).toBe(201);
        return json as Pairing;
      };
      const landed = async (page: Page) => {
        const cookies = await page.context().cookies(origin);
        if (!cookies.some((c) => c.name === "codewhale_web_session")) {
          throw new Error(`no session cookie was set; codewhale said:\n${logs()}`);
        }
        if (hydrates) await page.locator("html[data-hydrated]").waitFor();
      };
      await use({
        origin,
        token,
        workbenchUrl,
        firstPairingUrl,
        logs,
        workspace,
        mock: mockClient(mock.firstLine),
        v1,
        mintPairing,
        pair: async (page, label) => {
          const pairing = await mintPairing(label);
          await page.goto(pairing.url);
          await expect(page).toHaveURL(origin + "/mobile");
          await landed(page);
        },
        signInDesktop: async (page) => {
          await page.goto(workbenchUrl);
          await expect(page).toHaveURL(origin + "/");
          await landed(page);
        },
      });
      refusePanics(logs());
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      if ((failed || testInfo.status !== testInfo.expectedStatus) && logs()) {
        await testInfo.attach("codewhale.log", { body: logs(), contentType: "text/plain" });
      }
      for (const child of started.reverse()) await stop(child);
      rmSync(home, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    }
  },
});

export { expect };
