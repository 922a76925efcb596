import { defineConfig } from "@playwright/test";

// Debian's Chromium; Playwright never downloads a browser here.
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const launchOptions = {
  executablePath,
  // Without these, Chromium floods this machine's closed network.
  args: [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};

export default defineConfig({
  testDir: "./tests",
  outputDir: "./test-results",
  fullyParallel: false,
  // Every test starts its own codewhale and mock provider on ephemeral
  // ports, so spec files run two at a time (one per core).
  workers: Number(process.env.PLAYWRIGHT_WORKERS ?? 2),
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    // The app marks test hooks with data-test="…".
    testIdAttribute: "data-test",
    // Off: recording a trace of every test (kept only on failure) made the
    // suite ~30% slower on two cores (BENCHMARKS.md). To debug a failure,
    // rerun it with `npx playwright test --trace on <file>`; the server's
    // log and a screenshot are attached to every failure regardless.
    trace: "off",
    screenshot: "only-on-failure",
    launchOptions,
  },
  projects: [
    { name: "hydrated", testMatch: /.*\.spec\.ts/ },
    {
      name: "no-javascript",
      testMatch: /.*\.spec\.ts/,
      testIgnore: /.*\.hydrate\.spec\.ts/,
      use: { javaScriptEnabled: false },
    },
  ],
});
