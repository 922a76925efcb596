import { test, expect } from "./fixtures";
import { manyListDirCalls, text, reasoningThenText, toolCall } from "./support/replies";
import { createThread, runTurn } from "./support/threads";

// Runs hydrated and with JavaScript off: the rail and the transcript are
// rendered by the server, so a thread reads the same without the bundle.

test("the thread list and the transcript render server-side", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page, { title: "Server rendered" });
  await codewhale.mock.push(
    reasoningThenText("Think first.", "# Heading\n\nSome `code`:\n\n```sh\necho hi\n```\n\n<script>alert('x')</script>"),
  );
  await runTurn(codewhale.api, page, thread.id, "show me markdown");
  await codewhale.mock.push(toolCall("write_file", { path: "notes.txt", content: "one\ntwo\n" }), text("Wrote it."));
  await codewhale.api(page, "PATCH", `/v1/threads/${thread.id}`, { auto_approve: true });
  await runTurn(codewhale.api, page, thread.id, "write a file");

  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("thread-row")).toContainText("Server rendered");
  await expect(page.getByTestId("thread-title")).toHaveText("Server rendered");
  const transcript = page.getByTestId("transcript");
  await expect(transcript.locator(".bubble.user").first()).toHaveText("show me markdown");
  await expect(transcript.locator(".md h1")).toHaveText("Heading");
  await expect(transcript.locator(".md pre")).toContainText("echo hi");
  await expect(transcript.locator(".code .copy")).toHaveCount(1);
  // The model's HTML is text, never markup.
  await expect(transcript.locator("script")).toHaveCount(0);
  await expect(transcript).toContainText("<script>alert('x')</script>");
  await expect(transcript.locator(".reasoning")).toContainText("Think first.");
  const receipt = page.getByTestId("receipt");
  await expect(receipt).toContainText("write_file notes.txt");
  await expect(receipt.locator(".diff .add")).toHaveCount(2);
  await expect(page.getByTestId("posture")).toHaveText("Auto-approve");
  await page.screenshot({ path: test.info().outputPath("transcript.png"), fullPage: true });
});

test("on a phone-sized screen the thread takes the width and Threads brings the list back", async ({ page, codewhale }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await codewhale.signIn(page);
  const first = await createThread(codewhale.api, page, { title: "Pocket whale" });
  await createThread(codewhale.api, page, { title: "Other whale" });
  await page.goto(`${codewhale.origin}/threads/${first.id}`);
  await expect(page.getByTestId("thread-title")).toHaveText("Pocket whale");
  await expect(page.getByTestId("thread-list")).toBeHidden();
  await expect(page.getByTestId("prompt")).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("phone-thread.png"), fullPage: true });

  await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Threads" }).click();
  await expect(page.getByTestId("thread-list")).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("phone-threads.png"), fullPage: true });
  await page.getByTestId("thread-row").filter({ hasText: "Other whale" }).getByRole("link").click();
  await expect(page.getByTestId("thread-title")).toHaveText("Other whale");
  await expect(page.getByTestId("thread-list")).toBeHidden();
});

test("search narrows the rail", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  await createThread(codewhale.api, page, { title: "Alpha whale" });
  await createThread(codewhale.api, page, { title: "Beta dolphin" });
  await page.goto(`${codewhale.origin}/?q=dolphin`);
  await expect(page.getByTestId("thread-row")).toHaveCount(1);
  await expect(page.getByTestId("thread-row")).toContainText("Beta dolphin");
  await page.goto(`${codewhale.origin}/`);
  await expect(page.getByTestId("thread-row")).toHaveCount(2);
});

test("a long thread opens on its newest items and reaches its first", async ({ page, codewhale }, testInfo) => {
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page, { auto_approve: true });
  await codewhale.mock.push(manyListDirCalls(250), text("All listed."));
  await runTurn(codewhale.api, page, thread.id, "list it all");
  const { json: detail } = await codewhale.api(page, "GET", `/v1/threads/${thread.id}`);
  const total = detail.items.length;
  expect(total).toBe(252);

  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  const transcript = page.getByTestId("transcript");
  const items = page.getByTestId("item");
  await expect(items).toHaveCount(100);
  await expect(items.last()).toContainText("All listed.");
  const earlier = page.getByTestId("earlier");
  await expect(earlier).toHaveText("Show 100 earlier items (152 in all)");

  if (testInfo.project.use.javaScriptEnabled === false) {
    // Without JavaScript the button is a plain GET form.
    await earlier.click();
    await expect(page).toHaveURL(/\?from=52$/);
    await expect(items).toHaveCount(200);
    await expect(earlier).toHaveText("Show 52 earlier items");
    await earlier.click();
    await expect(items).toHaveCount(total);
  } else {
    // Hydrated, scrolling near the top brings the next page; what the
    // reader was looking at stays on screen.
    await page.locator("html[data-hydrated]").waitFor();
    // The page follows the newest item for two frames after it opens.
    await expect.poll(() => transcript.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(2);
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await expect(items.last()).toBeInViewport();
    await transcript.evaluate((el) => (el.scrollTop = 0));
    await expect(items).toHaveCount(200);
    await expect(items.nth(100)).toBeInViewport();
    await expect(earlier).toHaveText("Show 52 earlier items");
    // The button works from the keyboard too, in place: no navigation.
    // (Focused without scrolling: scrolling up would load the page first.)
    await earlier.evaluate((button: HTMLElement) => button.focus({ preventScroll: true }));
    await page.keyboard.press("Enter");
    await expect(items).toHaveCount(total);
    await expect(items.nth(152)).toBeInViewport();
    // The button left with the last page; focus stays in the transcript.
    await expect(transcript).toBeFocused();
    await expect(page).toHaveURL(`${codewhale.origin}/threads/${thread.id}`);

    // A page opened at `?from=N` (the button's link without JavaScript)
    // hydrates as the server rendered it, and the rest is still reachable.
    const errors: string[] = [];
    page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
    await page.goto(`${codewhale.origin}/threads/${thread.id}?from=52`);
    await page.locator("html[data-hydrated]").waitFor();
    await expect(items).toHaveCount(200);
    await expect(earlier).toHaveText("Show 52 earlier items");
    await earlier.evaluate((button: HTMLElement) => button.focus({ preventScroll: true }));
    await page.keyboard.press("Enter");
    await expect(items).toHaveCount(total);
    expect(errors).toEqual([]);
  }
  await expect(earlier).toHaveCount(0);
  await expect(items.first()).toContainText("list it all");
});
