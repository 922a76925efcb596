import { test, expect } from "./fixtures";
import { text } from "./support/replies";
import { createThread } from "./support/threads";

// The pages a thread does not need are lazy routes: their code is fetched
// as chunks, under this build's own path, when one is first shown.

const chunk = /\/pkg\/[0-9a-f]{64}\/(split_|chunk_)[^/]*\.wasm$/;

test("a thread page fetches no chunk; a lazy page fetches its own, cached for good, and works", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page);
  const fetched: { url: string; status: number; cache: string | undefined }[] = [];
  page.on("response", (r) => fetched.push({ url: r.url(), status: r.status(), cache: r.headers()["cache-control"] }));

  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await page.locator("html[data-hydrated]").waitFor();
  expect(fetched.filter((f) => chunk.test(f.url))).toEqual([]);
  // The bundle itself comes from this build's path too.
  expect(fetched.some((f) => /\/pkg\/[0-9a-f]{64}\/codewhale_bg\.wasm$/.test(f.url) && f.status === 200)).toBe(true);

  // In the page, not a page load: the router fetches the Skills chunk.
  await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Skills" }).click();
  await expect(page).toHaveURL(`${codewhale.origin}/skills`);
  await expect(page.getByRole("heading", { name: "Skills" })).toBeVisible();
  await expect(page.getByTestId("no-skills")).toBeVisible();
  const skills = fetched.filter((f) => chunk.test(f.url) && f.url.includes("split_skills_page"));
  expect(skills).toHaveLength(1);
  expect(skills[0].status).toBe(200);
  expect(skills[0].cache).toContain("immutable");
  expect(fetched.filter((f) => chunk.test(f.url)).every((f) => f.status === 200)).toBe(true);

  // Its code works: an import of a missing folder is refused with the reason.
  await page.getByTestId("import-skill").click();
  await page.getByTestId("skill-path").fill(codewhale.home + "/missing");
  await page.getByTestId("import-skill-submit").click();
  await expect(page.locator(".automation-form [role=alert]")).toContainText("cannot read");
});

test("a chunk that cannot be fetched says so and offers a reload", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  await page.goto(codewhale.origin + "/");
  await page.locator("html[data-hydrated]").waitFor();
  // What a tab of an older build meets after an upgrade: its chunks are gone.
  await page.route(/split_skills_page/, (route) => route.fulfill({ status: 404, body: "" }));
  await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Skills" }).click();
  const notice = page.getByTestId("code-unavailable");
  await expect(notice).toContainText("could not be loaded");
  // A page load gets the current build's bundle.
  await expect(notice.getByRole("link", { name: "Reload" })).toHaveAttribute("href", "/skills");
  // The rest of the page still works (the app did not abort), and a failed
  // fetch is not remembered: once the chunk is there, the page comes.
  const pages = page.getByRole("navigation", { name: "Pages" });
  await pages.getByRole("link", { name: "Threads" }).click();
  await expect(page).toHaveURL(`${codewhale.origin}/`);
  await page.unroute(/split_skills_page/);
  await pages.getByRole("link", { name: "Skills" }).click();
  await expect(page.getByTestId("no-skills")).toBeVisible();
});

test("a page whose code cannot be fetched while it hydrates reloads once, then stays as served", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  let loads = 0;
  page.on("load", () => (loads += 1));
  await page.route(/split_skills_page/, (route) => route.fulfill({ status: 404, body: "" }));
  await page.goto(codewhale.origin + "/skills");
  // One reload, then the server's page, readable and unhydrated.
  await expect.poll(() => loads).toBe(2);
  await expect(page.getByTestId("no-skills")).toBeVisible();
  await page.waitForTimeout(500);
  expect(loads).toBe(2);
  await expect(page.locator("html[data-hydrated]")).toHaveCount(0);
  expect(errors).toEqual([]);
  // Once the code is there, the page hydrates, and the next failure may reload again.
  await page.unroute(/split_skills_page/);
  await page.reload();
  await page.locator("html[data-hydrated]").waitFor();
  expect(await page.evaluate(() => sessionStorage.getItem("codewhale:reloaded-for-code"))).toBeNull();
});

test("a message completed live renders its Markdown from a chunk, and reads as plain text without it", async ({ page, codewhale }) => {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page);
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await expect(page.getByTestId("connection")).toHaveText("live");
  const agent = page.getByTestId("transcript").locator(".bubble.agent");

  await page.route(/split_markdown/, (route) => route.fulfill({ status: 404, body: "" }));
  await codewhale.mock.push(text("First **bold** answer."));
  await page.getByTestId("prompt").fill("one");
  await page.getByTestId("send").click();
  await expect(agent.first()).toHaveText("First **bold** answer.");
  await expect(agent.first().locator(".plain")).toBeVisible();

  // Once the chunk can be fetched, the next message is Markdown.
  await page.unroute(/split_markdown/);
  await codewhale.mock.push(text("Second **bold** answer."));
  await page.getByTestId("prompt").fill("two");
  await page.getByTestId("send").click();
  await expect(agent.nth(1).locator(".md strong")).toHaveText("bold");
  expect(errors).toEqual([]);
});

test("a side panel whose code cannot be fetched says so", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page);
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await page.locator("html[data-hydrated]").waitFor();
  await page.route(/split_thread_panels/, (route) => route.fulfill({ status: 404, body: "" }));
  await page.getByTestId("open-changes").click();
  await expect(page.locator("#thread-panel").getByTestId("code-unavailable")).toContainText("could not be loaded");
  await page.unroute(/split_thread_panels/);
  await page.getByTestId("close-panel").click();
  await page.getByTestId("open-files").click();
  await expect(page.locator("#thread-panel h2")).toBeFocused();
});

test("an action whose code cannot be fetched says so, keeps the prompt, and works once it can", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const thread = await createThread(codewhale.api, page);
  await page.goto(`${codewhale.origin}/threads/${thread.id}`);
  await page.locator("html[data-hydrated]").waitFor();
  // The calls only a user's action makes are a chunk, fetched on the first.
  await page.route(/split_clicks/, (route) => route.fulfill({ status: 404, body: "" }));
  await page.getByTestId("prompt").fill("first try");
  await page.getByTestId("send").click();
  await expect(page.locator(".composer [role=alert]")).toContainText("could not be loaded; reload the page");
  await expect(page.getByTestId("prompt")).toHaveValue("first try");

  await page.unroute(/split_clicks/);
  await codewhale.mock.push(text("Got it."));
  await page.getByTestId("send").click();
  await expect(page.getByTestId("transcript").locator(".bubble.user")).toHaveText("first try");
  await expect(page.getByTestId("transcript").locator(".bubble.agent")).toHaveText("Got it.");
});

test("another build's bundle path is refused", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  const other = "0".repeat(64);
  const response = await page.request.get(`${codewhale.origin}/pkg/${other}/codewhale_bg.wasm`);
  expect(response.status()).toBe(404);
});
