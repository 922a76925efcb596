import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { text, toolCall } from "./support/replies";
import { createThread, runTurn, startTurn } from "./support/threads";

// axe-core on every page of the workbench and the phone layout, in both
// colour schemes (the app follows prefers-color-scheme; each page is
// audited in one and then the other, on the same load), at a desktop and a
// phone size. The dark scheme changes colours only (style/: its media
// queries set custom properties and nothing else), so the dark pass runs
// the rules that read colours; the light pass runs every rule. Serious and critical violations fail; moderate and minor
// ones are listed in the report. Pages are audited hydrated, as people use
// them.

const sizes = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
};

const ANSWER = [
  "Here is the plan:\n\n",
  "1. Read `src/main.rs`.\n2. Fix the **off-by-one**.\n\n",
  "```rust\nfn main() {\n    println!(\"hello\");\n}\n```\n\n",
  "> Done; see [the docs](https://example.com/docs).",
];

/** Audits the page as it is now, light and then dark; returns the blocking findings. */
async function audit(page: Page, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    // The stylesheet has no transitions: the other scheme applies at once.
    await page.emulateMedia({ colorScheme });
    const rules = colorScheme === "light" ? undefined : COLOUR_RULES;
    found.push(...(await auditScheme(page, `${name}, ${colorScheme}`, rules)));
  }
  return found;
}

/** The axe rules whose outcome depends on colours. */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

async function auditScheme(page: Page, name: string, rules?: string[]): Promise<string[]> {
  const axe = new AxeBuilder({ page });
  const results = await (rules ? axe.withRules(rules) : axe).analyze();
  const line = (v: (typeof results.violations)[number]) =>
    `${name}: ${v.id} (${v.impact}) ${v.help}\n` +
    v.nodes.map((n) => `    ${n.target.join(" ")}: ${n.failureSummary?.replace(/\n\s*/g, " ")}`).join("\n");
  const blocking = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const minor = results.violations.filter((v) => !blocking.includes(v));
  if (minor.length) {
    const description = minor.map(line).join("\n");
    test.info().annotations.push({ type: "axe: moderate or minor", description });
    console.log(`axe, moderate or minor (not failing):\n${description}`);
  }
  return blocking.map(line);
}

/** Opens `url` and waits until it is hydrated (or, without the app, loaded). */
async function open(page: Page, url: string, hydrates = true) {
  await page.goto(url);
  if (hydrates) await page.locator("html[data-hydrated]").waitFor();
}

for (const [size, device] of Object.entries(sizes)) {
  test.describe(size, () => {
    test.use(device);
    // Every page is audited twice (both colour schemes) in one test.
    test.describe.configure({ timeout: 120_000 });
    // The headless shell denies notifications outright; a person's browser
    // has not decided yet, and the pages then offer "Enable
    // notifications": audit them in that state.
    test.beforeEach(async ({ page }) => {
      await page.addInitScript(() => {
        if ("Notification" in window) {
          Object.defineProperty(Notification, "permission", { configurable: true, get: () => "default" });
        }
      });
    });

    test("the workbench's pages have no serious accessibility violations", async ({ page, codewhale }) => {
      const found: string[] = [];
      const origin = codewhale.origin;

      await open(page, origin + "/");
      found.push(...(await audit(page, "sign-in")));
      await open(page, origin + "/__codewhale/bootstrap/not-a-link", false);
      found.push(...(await audit(page, "sign-in refused")));

      await codewhale.signIn(page);
      // A finished thread with a file change and formatted text, and
      // one waiting on an approval.
      const done = await createThread(codewhale.api, page, { mode: "yolo" });
      await codewhale.mock.push(
        toolCall("write_file", { path: "notes.md", content: "# Notes\n\nsecond line\n" }),
        text(...ANSWER),
      );
      await runTurn(codewhale.api, page, done.id, "Write notes, then explain the plan");
      const waiting = await createThread(codewhale.api, page);
      await codewhale.mock.push(toolCall("exec_shell", { command: "echo waiting" }));
      await startTurn(codewhale.api, page, waiting.id, "Run a command");

      await open(page, origin + "/");
      await expect(page.getByTestId("enable-notifications")).toBeVisible();
      found.push(...(await audit(page, "home")));
      await open(page, origin + `/threads/${done.id}`);
      await expect(page.getByTestId("thread-title")).toHaveText("Write notes, then explain the plan");
      found.push(...(await audit(page, "thread")));
      // The side panels: a turn's diff with its Undo button, and a file.
      await page.getByTestId("open-changes").click();
      await expect(page.getByTestId("turn-changes").locator(".diff")).toBeVisible();
      await expect(page.getByTestId("working-tree")).not.toContainText("Loading");
      found.push(...(await audit(page, "thread, changes panel")));
      await page.getByTestId("open-files").click();
      await page.getByRole("button", { name: "notes.md, file" }).click();
      await expect(page.getByTestId("file-content")).toContainText("second line");
      found.push(...(await audit(page, "thread, files panel")));
      // A review finding's card (the file is the one the first turn wrote).
      const review = await createThread(codewhale.api, page, { mode: "review" });
      await codewhale.mock.push(
        toolCall("submit_review_finding", {
          path: "notes.md", start_line: 3, end_line: 3, priority: "p0",
          title: "Vague line", body: "Say what the second line is.", replacement: "second line, explained",
        }),
        text("One finding."),
      );
      await runTurn(codewhale.api, page, review.id, "Review notes.md");
      await open(page, origin + `/threads/${review.id}`);
      await expect(page.getByTestId("finding")).toBeVisible();
      found.push(...(await audit(page, "thread with a review finding")));
      await open(page, origin + `/threads/${waiting.id}`);
      await expect(page.getByTestId("approval")).toBeVisible();
      found.push(...(await audit(page, "thread awaiting approval")));
      await open(page, origin + "/usage");
      await expect(page.getByTestId("usage-chart")).toBeVisible();
      found.push(...(await audit(page, "usage")));
      await open(page, origin + "/usage?days=7");
      found.push(...(await audit(page, "usage, 7 days")));
      mkdirSync(join(codewhale.home, "skills", "audit-skill"), { recursive: true });
      writeFileSync(
        join(codewhale.home, "skills", "audit-skill", "SKILL.md"),
        "---\nname: audit-skill\ndescription: A skill for the audit.\n---\nBody.\n",
      );
      await open(page, origin + "/skills");
      await expect(page.getByTestId("skill")).toHaveCount(1);
      await page.getByTestId("import-skill").click();
      found.push(...(await audit(page, "skills")));
      await codewhale.api(page, "POST", "/v1/apps/mcp/servers", { name: "audit", command: "/nonexistent/server" });
      await open(page, origin + "/mcp");
      await expect(page.getByTestId("mcp-server")).toHaveCount(1);
      await page.getByTestId("add-mcp-server").click();
      found.push(...(await audit(page, "mcp servers")));
      await open(page, origin + "/devices");
      found.push(...(await audit(page, "devices")));
      await open(page, origin + "/no-such-page");
      found.push(...(await audit(page, "not found")));

      expect(found, found.join("\n")).toEqual([]);
    });

    test("the phone layout's pages have no serious accessibility violations", async ({ page, mobile }) => {
      const found: string[] = [];
      await open(page, mobile.origin + "/mobile");
      found.push(...(await audit(page, "mobile, not paired")));

      const { json: thread } = await mobile.v1("POST", "/v1/threads", { mode: "yolo" });
      await mobile.mock.push(
        toolCall("write_file", { path: "notes.md", content: "# Notes\n" }),
        text(...ANSWER),
      );
      await mobile.v1("POST", `/v1/threads/${thread.id}/turns`, { prompt: "Explain the plan" });
      await mobile.pair(page);
      await expect(page.getByTestId("thread-row")).toHaveCount(1);
      await expect(page.getByTestId("enable-notifications")).toBeVisible();
      found.push(...(await audit(page, "mobile")));
      await open(page, mobile.origin + `/mobile/threads/${thread.id}`);
      await expect(page.getByTestId("thread-title")).toHaveText("Explain the plan");
      found.push(...(await audit(page, "mobile thread")));
      // Changes, read-only: the diff without an Undo button.
      await page.getByTestId("open-changes").click();
      await expect(page.getByTestId("turn-changes").locator(".diff")).toBeVisible();
      await expect(page.getByRole("button", { name: "Undo this turn" })).toHaveCount(0);
      found.push(...(await audit(page, "mobile thread, changes panel")));

      expect(found, found.join("\n")).toEqual([]);
    });
  });
}
