import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect } from "./fixtures";
import { text, toolCall } from "./support/replies";
import { createThread, runTurn } from "./support/threads";

// The thread's Changes and Files panels, and taking turns back from the
// workbench: undo (and its refusal), edit, fork from a message.

/** A thread (full access: writes need no approval) whose one turn rewrote `name`. */
async function threadThatWrote(page: any, codewhale: any, name: string, content: string) {
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page, { mode: "yolo" });
  await codewhale.mock.push(toolCall("write_file", { path: name, content }), text("Written."));
  await runTurn(codewhale.api, page, thread.id, `Rewrite ${name}`);
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");
  return thread;
}

test("undo a turn from the Changes panel", async ({ page, codewhale }) => {
  const file = join(codewhale.workspace, "hello.txt");
  writeFileSync(file, "original line\n");
  await threadThatWrote(page, codewhale, "hello.txt", "changed by the agent\n");

  await page.getByTestId("open-changes").click();
  const panel = page.getByTestId("changes-panel");
  await expect(panel.getByRole("heading", { name: "Changes" })).toBeFocused();
  const turn = panel.getByTestId("turn-changes");
  await expect(turn).toHaveCount(1);
  await expect(turn.locator(".diff .del")).toHaveText("-original line");
  await expect(turn.locator(".diff .add")).toHaveText("+changed by the agent");
  // Not a git repository: the working tree section says so.
  await expect(panel.getByTestId("working-tree")).toContainText("not a git repository");

  await turn.getByRole("button", { name: "Undo this turn" }).click();
  await expect(turn.getByTestId("undone")).toHaveText("Undone");
  await expect(turn.getByRole("button", { name: "Undo this turn" })).toHaveCount(0);
  expect(readFileSync(file, "utf8")).toBe("original line\n");
  // The transcript marks the undone prompt too.
  await expect(page.getByTestId("message-undone")).toHaveCount(1);
});

test("undo refuses when the file changed after the turn, and says which", async ({ page, codewhale }) => {
  const file = join(codewhale.workspace, "hello.txt");
  writeFileSync(file, "original line\n");
  await threadThatWrote(page, codewhale, "hello.txt", "changed by the agent\n");
  writeFileSync(file, "edited by hand\n");

  await page.getByTestId("open-changes").click();
  const turn = page.getByTestId("turn-changes");
  await turn.getByRole("button", { name: "Undo this turn" }).click();
  const alert = turn.getByRole("alert");
  await expect(alert).toContainText("HTTP 409");
  await expect(alert).toContainText("hello.txt");
  await expect(turn.getByTestId("undone")).toHaveCount(0);
  expect(readFileSync(file, "utf8")).toBe("edited by hand\n");
  // Escape closes the panel from the keyboard.
  await page.getByRole("heading", { name: "Changes" }).press("Escape");
  await expect(page.getByTestId("changes-panel")).toHaveCount(0);
});

test("fork from a message: the new thread ends before it, and can restore the files", async ({ page, codewhale }) => {
  const file = join(codewhale.workspace, "story.txt");
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page, { mode: "yolo" });
  await codewhale.mock.push(toolCall("write_file", { path: "story.txt", content: "one\n" }), text("First."));
  await runTurn(codewhale.api, page, thread.id, "first prompt");
  await codewhale.mock.push(toolCall("write_file", { path: "story.txt", content: "two\n" }), text("Second."));
  await runTurn(codewhale.api, page, thread.id, "second prompt");
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");

  const forks = page.getByRole("button", { name: "Fork from here" });
  await expect(forks).toHaveCount(2);
  await forks.nth(1).click();
  await expect(page).not.toHaveURL(new RegExp(thread.id));
  await expect(page.getByTestId("connection")).toHaveText("live");
  const users = page.getByTestId("transcript").locator(".bubble.user");
  await expect(users).toHaveCount(1);
  await expect(users).toHaveText("first prompt");
  await expect(page.getByTestId("transcript")).toContainText("First.");
  await expect(page.getByTestId("transcript")).not.toContainText("Second.");

  // The files are still as the second turn left them, until restored.
  expect(readFileSync(file, "utf8")).toBe("two\n");
  await page.getByRole("button", { name: "Restore files to this point" }).click();
  await expect(page.getByTestId("fork-restored")).toBeVisible();
  expect(readFileSync(file, "utf8")).toBe("one\n");
});

test("edit the last prompt: Escape closes the box, sending replaces the turn", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page);
  await codewhale.mock.push(text("A first answer."));
  await runTurn(codewhale.api, page, thread.id, "a prompt with a tpyo");
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");

  await page.getByRole("button", { name: "Edit" }).click();
  const box = page.getByTestId("edit-prompt");
  await expect(box).toBeFocused();
  await expect(box).toHaveValue("a prompt with a tpyo");
  await box.press("Escape");
  await expect(box).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Edit" })).toBeFocused();

  await page.getByRole("button", { name: "Edit" }).press("Enter");
  await codewhale.mock.push(text("The better answer."));
  await page.getByTestId("edit-prompt").fill("a prompt without one");
  await page.getByRole("button", { name: "Send edited prompt" }).click();
  const transcript = page.getByTestId("transcript");
  await expect(transcript.locator(".bubble.agent").last()).toHaveText("The better answer.");
  await expect(transcript.locator(".bubble.user").last()).toHaveText("a prompt without one");
  await expect(page.getByTestId("message-undone")).toHaveCount(1);
  const requests = await codewhale.mock.requests();
  const last = JSON.stringify(requests[requests.length - 1].messages);
  expect(last).toContain("a prompt without one");
  expect(last).not.toContain("tpyo");
});

test("browse into a folder and read a file in the Files panel", async ({ page, codewhale }) => {
  mkdirSync(join(codewhale.workspace, "src"));
  writeFileSync(join(codewhale.workspace, "src", "main.rs"), 'fn main() {\n    println!("hi"); // greet\n}\n');
  writeFileSync(join(codewhale.workspace, "blob.bin"), Buffer.from([0, 1, 2, 0, 255]));
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page);
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");

  await page.getByTestId("open-files").click();
  const panel = page.getByTestId("files-panel");
  await panel.getByRole("button", { name: "blob.bin, file" }).click();
  await expect(panel.getByTestId("file-binary")).toBeVisible();
  await panel.getByRole("button", { name: "src, folder" }).click();
  await panel.getByRole("button", { name: "main.rs, file" }).click();
  await expect(panel.getByTestId("file-facts")).toContainText("rust");
  const content = panel.getByTestId("file-content");
  await expect(content).toContainText('println!("hi");');
  await expect(content.locator(".code-line")).toHaveCount(3);
  await expect(content.locator(".tok-kw").first()).toHaveText("fn");
  await panel.getByRole("button", { name: "workspace" }).click();
  await expect(panel.getByRole("button", { name: "src, folder" })).toBeVisible();
});
