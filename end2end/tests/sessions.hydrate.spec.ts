import { test, expect } from "./fixtures";
import { text } from "./support/replies";
import { createThread, runTurn } from "./support/threads";

// The sessions page: a thread saved as a session (through /v1), found by
// search, resumed as a new thread that shows the conversation, then
// deleted.

test("a saved session is found, resumed as a thread and deleted", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page, { title: "Nightly refactor notes" });
  await codewhale.mock.push(text("The parser needs a rewrite."));
  await runTurn(codewhale.api, page, thread.id, "What should we refactor?");
  const saved = await codewhale.api(page, "POST", `/v1/threads/${thread.id}/persist-session`, {});
  expect(saved.status).toBe(201);

  await page.goto(codewhale.origin + "/sessions?search=nightly");
  await page.locator("html[data-hydrated]").waitFor();
  const row = page.getByTestId("session");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Nightly refactor notes");
  await expect(row).toContainText("2 messages");
  await page.goto(codewhale.origin + "/sessions?search=nothing-like-this");
  await page.locator("html[data-hydrated]").waitFor();
  await expect(page.getByTestId("no-sessions")).toBeVisible();

  await page.goto(codewhale.origin + "/sessions");
  await page.locator("html[data-hydrated]").waitFor();
  await row.getByTestId("resume-session").click();
  await expect(page).toHaveURL(/\/threads\/thr_/);
  expect(page.url()).not.toContain(thread.id);
  await expect(page.locator("main")).toContainText("The parser needs a rewrite.");
  await expect(page.locator("main")).toContainText("What should we refactor?");

  await page.goto(codewhale.origin + "/sessions");
  await page.locator("html[data-hydrated]").waitFor();
  await row.getByTestId("delete-session").click();
  await expect(page.getByTestId("no-sessions")).toBeVisible();
});
