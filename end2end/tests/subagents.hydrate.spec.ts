import { test, expect } from "./fixtures";
import { keyed, slowText, text, toolCall } from "./support/replies";
import { createThread, startTurn, waitForTurn } from "./support/threads";

// A sub-agent in the transcript: the parent's spawn_agent step links the
// child's thread while the child works, shows how it ended once it has,
// and the link opens the child's own transcript.

test("a spawned sub-agent is linked from its step, with its status live", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page, { mode: "yolo" });
  await codewhale.mock.push(
    toolCall("spawn_agent", { prompt: "Count the notes and report", wait: true }),
    keyed("depth 1 of", slowText(["Child ", "report: ", "no ", "notes ", "here."], 400)),
    text("Parent done."),
  );
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");
  const started = await startTurn(codewhale.api, page, thread.id, "Delegate the count");

  const link = page.getByTestId("sub-agent-thread");
  await expect(link).toBeVisible({ timeout: 10_000 });
  await expect(link).toHaveAttribute("href", /^\/threads\/thr_[0-9a-f]+$/);
  const turn = await waitForTurn(codewhale.api, page, thread.id, started.id);
  expect(turn.status, turn.error ?? "").toBe("completed");
  await expect(page.getByTestId("sub-agent-status")).toHaveText("completed");
  await expect(page.locator(".transcript")).toContainText("Parent done.");

  const { json: runs } = await codewhale.api(page, "GET", `/v1/agent-runs?parent_thread_id=${thread.id}`);
  expect(runs.runs).toHaveLength(1);
  await link.click();
  await expect(page).toHaveURL(`${codewhale.origin}/threads/${runs.runs[0].thread_id}`);
  await expect(page.locator(".transcript")).toContainText("Child report: no notes here.");
});
