import { test, expect } from "./fixtures";
import { text } from "./support/replies";

// /mobile without the wasm bundle's help: these run with JavaScript on and
// off. Pairing by a typed token is a plain form post; lists and transcripts
// are server-rendered.

test.use({ viewport: { width: 360, height: 640 }, hasTouch: true, isMobile: true });

test("a phone that is not paired learns how, and can pair by typing the token", async ({ page, mobile }) => {
  await page.goto(mobile.origin + "/mobile");
  const help = page.getByTestId("mobile-sign-in");
  await expect(help).toContainText("Pair a phone");
  await expect(help).toContainText("codewhale pair");
  await expect(page.getByTestId("thread-list")).toHaveCount(0);

  await page.getByText("Can't scan? Type the runtime token instead").click();
  const field = page.getByTestId("pair-token");
  await expect(field).toHaveAttribute("type", "password");
  await expect(field).toHaveAttribute("autocomplete", "off");
  await field.fill(mobile.token);
  await page.getByTestId("pair-with-token").click();
  await expect(page).toHaveURL(mobile.origin + "/mobile");
  await expect(page.getByTestId("no-threads")).toBeVisible();
  // The token went to the server once and was kept nowhere in the page.
  const cookies = await page.context().cookies(mobile.origin);
  expect(cookies.find((c) => c.name === "codewhale_web_session")?.httpOnly).toBe(true);
  expect(JSON.stringify(cookies)).not.toContain(mobile.token);
  expect(await page.content()).not.toContain(mobile.token);
  expect(page.url()).not.toContain(mobile.token);
});

test("a wrong token is refused", async ({ page, mobile }) => {
  await page.goto(mobile.origin + "/mobile");
  await page.getByText("Can't scan? Type the runtime token instead").click();
  await page.getByTestId("pair-token").fill("not-the-token");
  await page.getByTestId("pair-with-token").click();
  await expect(page.locator("body")).toContainText("not this server's");
  const cookies = await page.context().cookies(mobile.origin);
  expect(cookies.some((c) => c.name === "codewhale_web_session")).toBe(false);
});

test("a pairing link works once", async ({ page, browser, mobile }) => {
  const pairing = await mobile.mintPairing("First phone");
  expect(new URL(pairing.url).origin).toBe(mobile.origin);
  await page.goto(pairing.url);
  await expect(page).toHaveURL(mobile.origin + "/mobile");
  const other = await browser.newContext();
  const thief = await other.newPage();
  await thief.goto(pairing.url);
  await expect(thief.locator("body")).toContainText("not valid");
  expect((await other.cookies(mobile.origin)).some((c) => c.name === "codewhale_web_session")).toBe(false);
  await other.close();
});

test("a paired phone reads its threads and transcripts as served", async ({ page, mobile }) => {
  const { json: thread } = await mobile.v1("POST", "/v1/threads", { title: "From the desk" });
  await mobile.mock.push(text("Hello from **codewhale**."));
  const { json: started } = await mobile.v1("POST", `/v1/threads/${thread.id}/turns`, { prompt: "say hello" });
  await expect
    .poll(async () => (await mobile.v1("GET", `/v1/threads/${thread.id}`)).json.turns.find((t: any) => t.id === started.turn.id)?.status)
    .toBe("completed");

  await mobile.pair(page, "Reader");
  const row = page.getByTestId("thread-row").filter({ hasText: "From the desk" });
  await expect(row).toBeVisible();
  await row.getByRole("link").click();
  await expect(page).toHaveURL(`${mobile.origin}/mobile/threads/${thread.id}`);
  await expect(page.getByTestId("transcript").locator(".bubble.user")).toHaveText("say hello");
  await expect(page.getByTestId("transcript").locator(".bubble.agent strong")).toHaveText("codewhale");
  // One column: the list gives way to the thread, and nothing is wider than the phone.
  await expect(page.getByTestId("thread-list")).toBeHidden();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await page.getByTestId("back").click();
  await expect(page).toHaveURL(mobile.origin + "/mobile");
  await expect(page.getByTestId("thread-row")).toHaveCount(1);
});

test("the phone layout is installable: its manifest starts at /mobile and its icons are served", async ({ page, mobile }) => {
  await mobile.pair(page);
  const href = await page.locator('link[rel="manifest"]').getAttribute("href");
  expect(href).toBe("/mobile.webmanifest");
  const manifest = await (await page.request.get(mobile.origin + href)).json();
  expect(manifest.start_url).toBe("/mobile");
  expect(manifest.scope).toBe("/mobile");
  expect(manifest.display).toBe("standalone");
  const purposes = manifest.icons.map((icon: any) => `${icon.sizes} ${icon.purpose}`);
  expect(purposes).toEqual(expect.arrayContaining(["192x192 any", "512x512 any", "512x512 maskable"]));
  for (const icon of manifest.icons) {
    const response = await page.request.get(mobile.origin + icon.src);
    expect(response.status(), icon.src).toBe(200);
    expect(response.headers()["content-type"], icon.src).toContain(icon.type);
  }
});

test("the desktop's devices page lists paired phones as served", async ({ page, browser, mobile }) => {
  const phoneContext = await browser.newContext({ viewport: { width: 360, height: 640 }, isMobile: true });
  const phone = await phoneContext.newPage();
  await phone.goto((await mobile.mintPairing("Hall phone")).url);
  await expect(phone).toHaveURL(mobile.origin + "/mobile");
  await phoneContext.close();

  await page.setViewportSize({ width: 1280, height: 800 });
  await mobile.signInDesktop(page);
  await page.goto(mobile.origin + "/devices");
  const device = page.getByTestId("device");
  await expect(device).toHaveCount(1);
  await expect(device.getByTestId("device-name")).toHaveText("Hall phone");
  await expect(device).toContainText("from 127.0.0.1");
  await expect(device.getByTestId("this-device")).toHaveCount(0);
});
