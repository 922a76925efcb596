import { test, expect } from "./fixtures";
import { text, reasoningThenText, toolCall, slowText } from "./support/replies";
import { watchEventSources } from "./support/streams";

// The interactive workbench (needs the wasm bundle).

test("create a thread, stream an answer with reasoning, and follow it in the rail", async ({ page, codewhale }) => {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await codewhale.signIn(page);
  await expect(page.getByTestId("no-threads")).toBeVisible();

  await page.getByTestId("new-thread").click();
  await page.getByRole("button", { name: "Create thread" }).click();
  await expect(page).toHaveURL(/\/threads\/thr_/);
  await expect(page.getByTestId("connection")).toHaveText("live");

  await codewhale.mock.push(reasoningThenText("The user greets.", "Hello **there**, `friend`!"));
  await page.getByTestId("prompt").fill("hi");
  await page.getByTestId("prompt").press("Control+Enter");
  const transcript = page.getByTestId("transcript");
  await expect(transcript.locator(".bubble.user")).toHaveText("hi");
  await expect(transcript.locator(".bubble.agent strong")).toHaveText("there");
  await expect(transcript.locator(".reasoning")).toContainText("The user greets.");
  await expect(page.getByTestId("thread-row")).toHaveCount(1);
  await expect(page.getByTestId("thread-row")).toContainText("hi");
  await page.screenshot({ path: test.info().outputPath("answer.png"), fullPage: true });
  expect(errors).toEqual([]);
});

test("approve one shell command, deny another, and see the receipts", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const { json: thread } = await codewhale.api(page, "POST", "/v1/threads", {});
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");

  await codewhale.mock.push(
    toolCall("exec_shell", { command: "echo approved-output" }),
    toolCall("exec_shell", { command: "touch denied-file" }),
    text("Done."),
  );
  await page.getByTestId("prompt").fill("run things");
  await page.getByTestId("send").click();

  const approval = page.getByTestId("approval");
  await expect(approval).toContainText("echo approved-output");
  await page.screenshot({ path: test.info().outputPath("approval.png"), fullPage: true });
  await approval.getByTestId("allow").click();
  await expect(approval).toContainText("touch denied-file");
  await approval.getByTestId("deny").click();
  await expect(page.getByTestId("transcript").locator(".bubble.agent")).toHaveText("Done.");
  await expect(approval).toHaveCount(0);

  const receipts = page.getByTestId("receipt");
  await expect(receipts).toHaveCount(2);
  await receipts.first().locator("summary").click();
  await expect(receipts.first().locator(".command")).toHaveText("$ echo approved-output");
  await expect(receipts.first().locator(".output")).toContainText("approved-output");
  await expect(receipts.nth(1).locator(".status")).toHaveText("failed");
});

test("answer the agent's questions", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const { json: thread } = await codewhale.api(page, "POST", "/v1/threads", {});
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");
  await codewhale.mock.push(
    toolCall("request_user_input", {
      questions: [
        { id: "db", header: "Database", question: "Which database?", options: [{ label: "SQLite" }, { label: "Postgres" }] },
        { id: "name", question: "Project name?", allow_free_text: true },
      ],
    }),
    text("Thanks."),
  );
  await page.getByTestId("prompt").fill("set it up");
  await page.getByTestId("send").click();
  const form = page.getByTestId("user-input");
  await expect(form).toContainText("Which database?");
  await form.getByLabel("SQLite").check();
  await form.getByRole("button", { name: "Send answers" }).click();
  await expect(form.getByRole("alert")).toContainText("Project name?");
  await form.getByPlaceholder("Your answer").fill("whale-secret-name");
  await form.getByRole("button", { name: "Send answers" }).click();
  await expect(page.getByTestId("transcript").locator(".bubble.agent")).toHaveText("Thanks.");
  await expect(form).toHaveCount(0);
  const requests = await codewhale.mock.requests();
  expect(JSON.stringify(requests[1])).toContain("whale-secret-name");
  await page.reload();
  await expect(page.locator("body")).not.toContainText("whale-secret-name");
});

test("steer and stop a running turn", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const { json: thread } = await codewhale.api(page, "POST", "/v1/threads", {});
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");
  await codewhale.mock.push(slowText(["one ", "two ", "three ", "four ", "five ", "six ", "seven "], 400));
  await page.getByTestId("prompt").fill("count slowly");
  await page.getByTestId("send").click();
  await expect(page.getByTestId("send")).toHaveText("Steer");
  await expect(page.getByTestId("transcript").locator(".streaming")).toContainText("one");
  await page.getByTestId("prompt").fill("actually, stop at three");
  await page.getByTestId("prompt").press("Control+Enter");
  await expect(page.getByTestId("transcript").locator(".bubble.user")).toHaveCount(2);
  await page.getByTestId("stop").click();
  await expect(page.getByTestId("send")).toHaveText("Send");
  await expect(page.getByTestId("stop")).toHaveCount(0);
});

test("rename, archive and fork from the header", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const { json: thread } = await codewhale.api(page, "POST", "/v1/threads", {});
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");
  await page.getByRole("button", { name: "Rename" }).click();
  await page.getByRole("dialog", { name: "Rename thread" }).getByLabel("Title").fill("Whale tales");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("thread-title")).toHaveText("Whale tales");
  await expect(page.getByTestId("thread-row")).toContainText("Whale tales");

  await page.getByTestId("fork").click();
  await expect(page).not.toHaveURL(new RegExp(thread.id));
  await expect(page.getByTestId("thread-row")).toHaveCount(2);

  await page.getByTestId("archive").click();
  await expect(page.getByTestId("archive")).toHaveText("Unarchive");
  await expect(page.getByTestId("thread-row")).toHaveCount(1);
  await page.getByRole("link", { name: "Show archived threads" }).click();
  await expect(page.getByTestId("thread-row")).toHaveCount(1);
});

test("a reload in the middle of a turn keeps the pending approval, and it still works", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const { json: thread } = await codewhale.api(page, "POST", "/v1/threads", {});
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");
  await codewhale.mock.push(toolCall("exec_shell", { command: "echo after-reload" }), text("All done."));
  await page.getByTestId("prompt").fill("run it");
  await page.getByTestId("send").click();
  await expect(page.getByTestId("approval")).toContainText("echo after-reload");

  await page.reload();
  await expect(page.getByTestId("approval")).toContainText("echo after-reload");
  await expect(page.getByTestId("connection")).toHaveText("live");
  await page.getByTestId("approval").getByTestId("allow").click();
  await expect(page.getByTestId("transcript").locator(".bubble.agent")).toHaveText("All done.");
  await expect(page.getByTestId("receipt").locator(".output")).toContainText("after-reload");
});

test("a cut event stream reconnects without losing or repeating text", async ({ page, codewhale }) => {
  // Keep a handle on the page's EventSources so the test can cut one.
  await watchEventSources(page);
  await codewhale.signIn(page);
  const { json: thread } = await codewhale.api(page, "POST", "/v1/threads", {});
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");
  const words = Array.from({ length: 30 }, (_, n) => `w${n} `);
  await codewhale.mock.push(slowText(words, 60));
  await page.getByTestId("prompt").fill("stream a lot");
  await page.getByTestId("send").click();
  await expect(page.getByTestId("transcript").locator(".streaming")).toContainText("w2");

  await page.evaluate(() => (window as any).__sources.at(-1).close());
  await page.waitForTimeout(800); // the turn streams on while we hear nothing
  await page.evaluate(() => {
    const source = (window as any).__sources.at(-1);
    source.onerror(new Event("error"));
  });
  await expect(page.getByTestId("connection")).toHaveText("reconnecting…");
  await expect(page.getByTestId("connection")).toHaveText("live");
  const answer = page.getByTestId("transcript").locator(".bubble.agent");
  await expect(answer).toHaveText(words.join("").trim());
  const opened = await page.evaluate(() => (window as any).__sources.map((s: EventSource) => s.url));
  expect(opened.length).toBe(2);
  expect(new URL(opened[1]).searchParams.get("since_seq")).not.toBe(new URL(opened[0]).searchParams.get("since_seq"));
});

test("a missing event reloads the snapshot: the streamed text stays whole", async ({ page, codewhale }) => {
  // Drop one delta before the page sees it, as a lost event would: the next
  // event's previous_seq no longer matches the page's cursor.
  await watchEventSources(page, { dropDelta: 3 });
  await codewhale.signIn(page);
  const { json: thread } = await codewhale.api(page, "POST", "/v1/threads", {});
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");
  const words = Array.from({ length: 24 }, (_, n) => `w${n} `);
  const whole = words.join("");
  await codewhale.mock.push(slowText(words, 80));
  await page.getByTestId("prompt").fill("stream with a hole");
  await page.getByTestId("send").click();

  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const streaming = page.getByTestId("transcript").locator(".streaming");
  await expect(streaming).toContainText("w12");
  await expect.poll(() => page.evaluate(() => (window as any).__dropped)).toBe(1);
  // After the reload, the text is a clean prefix of the answer (read at once:
  // the streaming paragraph is replaced when the answer completes).
  const partial = await page.evaluate(() => document.querySelector("[data-test=transcript] .bubble.agent")?.textContent ?? "");
  expect(partial).toContain("w12");
  expect(whole.startsWith(partial)).toBe(true);
  await expect(page.getByTestId("transcript").locator(".bubble.agent")).toHaveText(whole.trim());
  const opened = await page.evaluate(() => (window as any).__sources.length);
  expect(opened, "the stream was reopened from the fresh snapshot").toBe(2);
  expect(errors).toEqual([]);
});

test("switching threads mid-stream: the other thread's events stay out, and coming back shows everything once", async ({ page, codewhale }) => {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await codewhale.signIn(page);
  const { json: first } = await codewhale.api(page, "POST", "/v1/threads", { title: "Streaming one" });
  await codewhale.api(page, "POST", "/v1/threads", { title: "Quiet one" });
  await page.goto(`${codewhale.origin}/threads/${first.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");
  const words = Array.from({ length: 30 }, (_, n) => `s${n} `);
  await codewhale.mock.push(slowText(words, 60));
  await page.getByTestId("prompt").fill("keep talking");
  await page.getByTestId("send").click();
  const transcript = page.getByTestId("transcript");
  await expect(transcript.locator(".streaming")).toContainText("s2");

  await page.getByTestId("thread-row").filter({ hasText: "Quiet one" }).getByRole("link").click();
  await expect(page.getByTestId("thread-title")).toHaveText("Quiet one");
  await expect(page.getByTestId("connection")).toHaveText("live");
  await page.waitForTimeout(700); // the first thread streams on meanwhile
  await expect(transcript.getByTestId("item")).toHaveCount(0);

  await page.getByTestId("thread-row").filter({ hasText: "Streaming one" }).getByRole("link").click();
  await expect(page.getByTestId("thread-title")).toHaveText("Streaming one");
  await expect(transcript.locator(".bubble.agent")).toHaveText(words.join("").trim());
  await expect(transcript.locator(".bubble.user")).toHaveCount(1);
  expect(errors).toEqual([]);
  // Client-side navigation all along: the page was never reloaded.
  expect(await page.evaluate(() => performance.getEntriesByType("navigation").length)).toBe(1);
});

test("two tabs on one thread stay in sync", async ({ page, context, codewhale }) => {
  await codewhale.signIn(page);
  const { json: thread } = await codewhale.api(page, "POST", "/v1/threads", {});
  const url = `${codewhale.origin}/threads/${thread.id}`;
  await page.goto(url);
  const other = await context.newPage();
  await other.goto(url);
  for (const tab of [page, other]) await expect(tab.getByTestId("connection")).toHaveText("live");

  await codewhale.mock.push(toolCall("exec_shell", { command: "echo two-tabs" }), text("Synced answer."));
  await page.getByTestId("prompt").fill("from the first tab");
  await page.getByTestId("send").click();
  await expect(other.getByTestId("approval")).toContainText("echo two-tabs");
  await other.getByTestId("approval").getByTestId("allow").click();
  for (const tab of [page, other]) {
    await expect(tab.getByTestId("approval")).toHaveCount(0);
    await expect(tab.getByTestId("transcript").locator(".bubble.user")).toHaveText("from the first tab");
    await expect(tab.getByTestId("transcript").locator(".bubble.agent")).toHaveText("Synced answer.");
  }
});

test("a failed action says what went wrong, with its HTTP status, and keeps the input", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  await page.getByTestId("new-thread").click();
  const form = page.getByRole("form", { name: "New thread" });
  const workspace = form.getByLabel("Workspace", { exact: true });
  await workspace.fill("/definitely/not/a/workspace");
  await page.getByRole("button", { name: "Create thread" }).click();
  const alert = form.getByRole("alert");
  await expect(alert).toHaveText(/^HTTP 409: workspace ".*" does not exist$/);
  await expect(page).toHaveURL(codewhale.origin + "/");
  await expect(workspace).toHaveValue("/definitely/not/a/workspace");
  await page.screenshot({ path: test.info().outputPath("failed-action.png"), fullPage: true });
});

test("typing in the search box narrows the rail in place, and Enter searches at once", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  for (const title of ["Alpha whale", "Beta dolphin"]) {
    await codewhale.api(page, "POST", "/v1/threads", { title });
  }
  await page.goto(`${codewhale.origin}/`);
  await expect(page.locator("html[data-hydrated]")).toBeAttached();
  await expect(page.getByTestId("thread-row")).toHaveCount(2);
  // A full page load would drop this marker: the search must stay in the app.
  await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));

  const search = page.getByLabel("Search threads");
  await search.pressSequentially("dolph");
  await expect(page).toHaveURL(/\?q=dolph$/);
  await expect(page.getByTestId("thread-row")).toHaveCount(1);
  await expect(page.getByTestId("thread-row")).toContainText("Beta dolphin");

  // Set without an input event (which would navigate after its pause):
  // only Enter can search now.
  await search.evaluate((el) => ((el as HTMLInputElement).value = "whale"));
  await search.press("Enter");
  await expect(page).toHaveURL(/\?q=whale$/);
  await expect(page.getByTestId("thread-row")).toHaveCount(1);
  await expect(page.getByTestId("thread-row")).toContainText("Alpha whale");
  expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
});
