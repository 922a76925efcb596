import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { test, expect } from "./fixtures";
import { text, toolCall } from "./support/replies";
import { createThread, startTurn, waitForTurn } from "./support/threads";

// The MCP servers page: the reference server-everything (from npm, in
// interop/) added from the form, its tools listed (which starts it), its
// tool called by the model with the user's approval; then switched off
// and removed. The variable's value never reaches the page.

const everything = join(
  dirname(createRequire(resolve(__dirname, "../../interop/package.json")).resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

test("an MCP server is added, started, used by the model and removed from the page", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  await page.goto(codewhale.origin + "/mcp");
  await page.locator("html[data-hydrated]").waitFor();
  await expect(page.getByTestId("no-mcp-servers")).toBeVisible();

  await page.getByTestId("add-mcp-server").click();
  await page.getByTestId("mcp-name").fill("everything");
  await page.getByTestId("mcp-target").fill(process.execPath);
  await page.getByTestId("mcp-args").fill(`${everything}\nstdio`);
  await page.getByTestId("mcp-values-input").fill("PAGE_SECRET=page-secret-value");
  await page.getByTestId("mcp-add-submit").click();
  await expect(page.getByTestId("mcp-added")).toHaveText("Added everything.");
  const row = page.getByTestId("mcp-server");
  await expect(row).toHaveAttribute("data-status", "idle");
  await expect(row.getByTestId("mcp-values")).toHaveText("variables: PAGE_SECRET");
  expect(await page.content()).not.toContain("page-secret-value");
  expect(readFileSync(join(codewhale.home, "config.toml"), "utf8")).toContain("page-secret-value");

  // Listing its tools starts it.
  await row.getByTestId("mcp-show-tools").click();
  await expect(row.getByTestId("mcp-tool").filter({ hasText: "mcp__everything__echo" })).toBeVisible();
  await page.reload();
  await expect(row).toHaveAttribute("data-status", "ready");

  // The model calls it; the call waits for approval (not trusted).
  const thread = await createThread(codewhale.api, page);
  await codewhale.mock.push(toolCall("mcp__everything__echo", { message: "from the page test" }), text("Echoed."));
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  const started = await startTurn(codewhale.api, page, thread.id, "Echo something");
  const approval = page.getByTestId("approval");
  await expect(approval).toContainText("from the page test");
  await approval.getByTestId("allow").click();
  const turn = await waitForTurn(codewhale.api, page, thread.id, started.id);
  expect(turn.status, turn.error ?? "").toBe("completed");
  await expect(page.locator("main")).toContainText("from the page test");

  await page.goto(codewhale.origin + "/mcp");
  await page.locator("html[data-hydrated]").waitFor();
  await row.getByTestId("mcp-toggle").click();
  await expect(row).toHaveAttribute("data-status", "disabled");
  await row.getByTestId("mcp-delete").click();
  await expect(page.getByTestId("no-mcp-servers")).toBeVisible();
  expect(readFileSync(join(codewhale.home, "config.toml"), "utf8")).not.toContain("everything");
});
