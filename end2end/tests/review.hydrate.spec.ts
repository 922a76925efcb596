import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect } from "./fixtures";
import { text, toolCall } from "./support/replies";
import { createThread, runTurn } from "./support/threads";

// Review mode in the workbench: a finding as a card, Apply, and Revert
// (refused while the file differs from what the apply turn left).

test("apply a finding, see a conflicting revert refused, then revert it", async ({ page, codewhale }) => {
  const file = join(codewhale.workspace, "app.txt");
  writeFileSync(file, "one\ntwo\nthree\n");
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page, { mode: "review", auto_approve: true });
  await codewhale.mock.push(
    toolCall("submit_review_finding", {
      path: "app.txt",
      start_line: 2,
      end_line: 2,
      priority: "p1",
      title: "Say it louder",
      body: "The second line should shout.",
      replacement: "TWO",
    }),
    text("One finding."),
  );
  await runTurn(codewhale.api, page, thread.id, "Review app.txt");
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");

  const card = page.getByTestId("finding");
  await expect(card).toContainText("P1");
  await expect(card.getByRole("heading", { name: "Say it louder", level: 2 })).toBeVisible();
  await expect(card).toContainText("app.txt:2");
  await expect(card).toContainText("The second line should shout.");
  await expect(card.locator(".diff .del")).toHaveText("-two");
  await expect(card.locator(".diff .add")).toHaveText("+TWO");

  await codewhale.mock.push(
    toolCall("write_file", { path: "app.txt", content: "one\nTWO\nthree\n" }),
    text("Applied."),
  );
  await card.getByRole("button", { name: "Apply" }).click();
  const action = page.getByTestId("review-action");
  await expect(action).toContainText("Say it louder");
  await expect(page.getByTestId("transcript").locator(".bubble.agent").last()).toHaveText("Applied.");
  expect(readFileSync(file, "utf8")).toBe("one\nTWO\nthree\n");

  // A hand edit after the apply: revert refuses and names the file.
  writeFileSync(file, "one\nTWO\nthree\nmine\n");
  await action.getByRole("button", { name: "Revert" }).click();
  await expect(action.getByRole("alert")).toContainText("app.txt");
  expect(readFileSync(file, "utf8")).toBe("one\nTWO\nthree\nmine\n");

  writeFileSync(file, "one\nTWO\nthree\n");
  await action.getByRole("button", { name: "Revert" }).click();
  await expect(action.getByTestId("reverted")).toHaveText("Reverted");
  await expect(action.getByRole("button", { name: "Revert" })).toHaveCount(0);
  expect(readFileSync(file, "utf8")).toBe("one\ntwo\nthree\n");
});
