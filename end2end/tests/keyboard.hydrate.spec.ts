import type { Locator, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { slowText, text, toolCall } from "./support/replies";

// Keyboard-only use: after signing in, every step is a key press. Controls
// are reached with Tab / Shift+Tab, so each one is proven reachable.

async function tabTo(page: Page, target: Locator, key: "Tab" | "Shift+Tab" = "Tab") {
  for (let presses = 0; presses < 60; presses++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press(key);
  }
  throw new Error(`${key} never reached ${target}`);
}

test("create a thread, prompt, approve, stop and rename with the keyboard alone", async ({ page, codewhale }) => {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await codewhale.signIn(page);
  await expect(page.getByTestId("no-threads")).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("main")).toBeFocused();

  await tabTo(page, page.getByTestId("new-thread"));
  await page.keyboard.press("Enter");
  await tabTo(page, page.getByRole("button", { name: "Create thread" }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/threads\/thr_/);
  const prompt = page.getByTestId("prompt");
  await expect(prompt, "a new thread puts the cursor in the prompt").toBeFocused();
  await expect(page.getByTestId("thread-row").getByRole("link")).toHaveAttribute("aria-current", "page");

  await codewhale.mock.push(toolCall("exec_shell", { command: "echo typed-only" }), text("Done."));
  await page.keyboard.type("run it");
  await page.keyboard.press("Control+Enter");
  const approval = page.getByTestId("approval");
  await expect(approval).toContainText("echo typed-only");
  await expect(prompt, "an arriving approval does not steal focus").toBeFocused();
  await tabTo(page, approval.getByTestId("allow"), "Shift+Tab");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("transcript").locator(".bubble.agent")).toHaveText("Done.");
  await expect(approval).toHaveCount(0);
  await expect(prompt, "focus goes back to the prompt once the card is gone").toBeFocused();

  await codewhale.mock.push(slowText(["one ", "two ", "three ", "four ", "five ", "six "], 400));
  await page.keyboard.type("count slowly");
  await page.keyboard.press("Control+Enter");
  await expect(page.getByTestId("stop")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("stop")).toHaveCount(0);

  // Stop reached with Tab: the prompt gets focus back once the turn stops.
  await codewhale.mock.push(slowText(["again ", "and ", "again ", "and ", "again "], 400));
  await page.keyboard.type("once more");
  await page.keyboard.press("Control+Enter");
  await tabTo(page, page.getByTestId("stop"));
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("stop")).toHaveCount(0);
  await expect(prompt).toBeFocused();

  const rename = page.getByTestId("rename");
  await tabTo(page, rename, "Shift+Tab");
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Rename thread" });
  await expect(dialog.getByLabel("Title")).toBeFocused();
  await page.keyboard.press("Control+A");
  await page.keyboard.type("Keyboard tales");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("thread-title")).toHaveText("Keyboard tales");
  await expect(dialog).toBeHidden();
  await expect(rename, "closing the dialog returns focus to its button").toBeFocused();

  await page.keyboard.press("Enter");
  await expect(dialog.getByLabel("Title")).toBeFocused();
  await page.keyboard.type(" (discarded)");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(rename).toBeFocused();
  await expect(page.getByTestId("thread-title")).toHaveText("Keyboard tales");
  await page.screenshot({ path: test.info().outputPath("keyboard.png"), fullPage: true });
  expect(errors).toEqual([]);
});
