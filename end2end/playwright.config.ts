import { defineConfig } from "@playwright/test";

import { existsSync } from "node:fs";

// Debian's Chromium; Playwright never downloads a browser here. Tests run in
// Debian's build of its headless shell (package chromium-headless-shell: the
// same Blink and V8 without the browser's own UI layer), which took a third
// less CPU for the whole suite than the full browser in headless mode
// (BENCHMARKS.md, tenth stop). Tests tagged @full-chromium need what only the
// full browser has (the shell denies every notification permission) and run
// in it. PLAYWRIGHT_CHROMIUM=full runs everything in the full browser
// (scripts/bench-web does, so its figures are what a person's browser does).
const fullChromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const shell = process.env.CHROMIUM_HEADLESS_SHELL ?? "/usr/bin/chromium-headless-shell";
const everyday =
  process.env.PLAYWRIGHT_CHROMIUM === "full" || !existsSync(shell) ? fullChromium : shell;
const launch = (executablePath: string) => ({
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
});

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
  },
  projects: [
    {
      name: "hydrated",
      testMatch: /.*\.spec\.ts/,
      grepInvert: /@full-chromium/,
      use: { launchOptions: launch(everyday) },
    },
    {
      name: "hydrated, full Chromium",
      testMatch: /.*\.spec\.ts/,
      grep: /@full-chromium/,
      use: { launchOptions: launch(fullChromium) },
    },
    {
      name: "no-javascript",
      testMatch: /.*\.spec\.ts/,
      testIgnore: /.*\.hydrate\.spec\.ts/,
      use: { javaScriptEnabled: false, launchOptions: launch(everyday) },
    },
  ],
});
