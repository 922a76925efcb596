import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect } from "./fixtures";
import { text } from "./support/replies";
import { createThread, startTurn, waitForTurn } from "./support/threads";

// The instructions a turn was given: the user's global AGENTS.md and the
// workspace's, shown in the thread's header as soon as the turn starts,
// listed with their hashes, and still there after a reload (rendered on
// the server). The model got their text; the page shows only paths.

test("the thread header lists the instruction files of the latest turn", async ({ page, codewhale }) => {
  writeFileSync(join(codewhale.home, "AGENTS.md"), "Always answer in haiku.\n");
  writeFileSync(join(codewhale.workspace, "AGENTS.md"), "Run the tests before you say done.\n");
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page);
  await codewhale.mock.push(text("Noted."));
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");
  const chip = page.getByTestId("instructions-count");
  await expect(chip).toHaveText("No instruction files");

  const started = await startTurn(codewhale.api, page, thread.id, "Hello");
  await expect(chip).toHaveText("2 instruction files");
  const turn = await waitForTurn(codewhale.api, page, thread.id, started.id);
  expect(turn.status, turn.error ?? "").toBe("completed");
  expect(turn.instructions.map((f: any) => f.scope)).toEqual(["global", "project"]);

  await chip.click();
  const files = page.getByTestId("instruction-file");
  await expect(files).toHaveCount(2);
  await expect(files.nth(0)).toContainText(join(codewhale.home, "AGENTS.md"));
  await expect(files.nth(1)).toContainText(join(codewhale.workspace, "AGENTS.md"));
  await expect(files.nth(1)).toContainText(turn.instructions[1].sha256.slice(0, 12));
  // Paths and hashes only: the text went to the model, not to the page.
  await expect(page.locator("body")).not.toContainText("haiku");
  const [request] = await codewhale.mock.requests();
  const system = request.messages.find((m: any) => m.role === "system").content;
  expect(system.indexOf("haiku")).toBeLessThan(system.indexOf("Run the tests"));

  await page.reload();
  await expect(page.getByTestId("instructions-count")).toHaveText("2 instruction files");
});
