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

test("review cards are a chunk the page loads before it hydrates; without it the page reloads once, then stays as served", async ({ page, codewhale }) => {
  writeFileSync(join(codewhale.workspace, "app.txt"), "one\n");
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page, { mode: "review" });
  await codewhale.mock.push(
    toolCall("submit_review_finding", {
      path: "app.txt",
      start_line: 1,
      end_line: 1,
      priority: "p2",
      title: "Served as is",
      body: "Readable without its code.",
    }),
    text("One finding."),
  );
  await runTurn(codewhale.api, page, thread.id, "Review app.txt");

  const fetched: string[] = [];
  page.on("request", (r) => fetched.push(r.url()));
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await page.locator("html[data-hydrated]").waitFor();
  expect(fetched.some((url) => url.includes("split_review_cards"))).toBe(true);
  await expect(page.getByTestId("finding")).toContainText("Served as is");

  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  let loads = 0;
  page.on("load", () => (loads += 1));
  // Routing bypasses the browser's cache: the next load asks for it again.
  await page.route(/split_review_cards/, (route) => route.fulfill({ status: 404, body: "" }));
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect.poll(() => loads).toBe(2);
  await expect(page.getByTestId("finding")).toContainText("Readable without its code.");
  await page.waitForTimeout(500);
  expect(loads).toBe(2);
  await expect(page.locator("html[data-hydrated]")).toHaveCount(0);
  expect(errors).toEqual([]);
});
