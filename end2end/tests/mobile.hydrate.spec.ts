import { test, expect } from "./fixtures";
import type { Page } from "@playwright/test";
import { text, toolCall, slowText } from "./support/replies";
import { watchEventSources } from "./support/streams";
import { recordNotifications, setHidden } from "./support/notifications";

// The phone layout, live: a 360×640 touch screen paired by its link.

test.use({ viewport: { width: 360, height: 640 }, hasTouch: true, isMobile: true });

/** Every visible control on the page is at least 44 px high. */
async function expectTouchTargets(page: Page) {
  const small = await page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>(".mobile-app :is(button, a, textarea, input, select, summary)"))
      .filter((el) => el.getClientRects().length > 0)
      // Links inside text (a transcript's Markdown) and the boxes of a
      // labelled radio or checkbox (the label is the target) are exempt.
      .filter((el) => !el.closest(".item"))
      .filter((el) => !(el instanceof HTMLInputElement && ["radio", "checkbox"].includes(el.type)))
      .map((el) => ({ el: el.outerHTML.slice(0, 80), height: el.getBoundingClientRect().height }))
      .filter(({ height }) => height < 44),
  );
  expect(small).toEqual([]);
}

async function newThreadOnPhone(page: Page) {
  await page.getByTestId("new-thread").tap();
  await page.getByRole("button", { name: "Create thread" }).tap();
  await expect(page).toHaveURL(/\/mobile\/threads\/thr_/);
  await expect(page.getByTestId("connection")).toHaveText("live");
  return page.url().split("/").pop()!;
}

test("pair, create a thread, send, approve and answer on a phone", async ({ page, mobile }) => {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await mobile.pair(page, "Pocket");
  await expect(page.getByTestId("no-threads")).toBeVisible();
  await expectTouchTargets(page);
  await newThreadOnPhone(page);

  await mobile.mock.push(
    toolCall("exec_shell", { command: "echo from-the-phone" }),
    toolCall("request_user_input", {
      questions: [{ id: "db", header: "Database", question: "Which database?", options: [{ label: "SQLite" }, { label: "Postgres" }] }],
    }),
    text("All set."),
  );
  await page.getByTestId("prompt").fill("set it up");
  await page.getByTestId("send").tap();
  const approval = page.getByTestId("approval");
  await expect(approval).toContainText("echo from-the-phone");
  await expectTouchTargets(page);
  const allow = approval.getByTestId("allow");
  const box = (await allow.boundingBox())!;
  expect(box.height).toBeGreaterThanOrEqual(48);
  expect(box.width).toBeGreaterThanOrEqual(120);
  await allow.tap();

  const form = page.getByTestId("user-input");
  await expect(form).toContainText("Which database?");
  await form.getByLabel("Postgres").tap();
  await form.getByRole("button", { name: "Send answers" }).tap();
  await expect(page.getByTestId("transcript").locator(".bubble.agent")).toHaveText("All set.");
  await expect(page.getByTestId("receipt").first()).toContainText("echo from-the-phone");
  expect(JSON.stringify((await mobile.mock.requests())[2])).toContain("Postgres");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  expect(errors).toEqual([]);
});

test("steer and stop a running turn from the phone", async ({ page, mobile }) => {
  await mobile.pair(page);
  await newThreadOnPhone(page);
  await mobile.mock.push(slowText(["one ", "two ", "three ", "four ", "five ", "six ", "seven "], 400));
  await page.getByTestId("prompt").fill("count slowly");
  await page.getByTestId("send").tap();
  await expect(page.getByTestId("send")).toHaveText("Steer");
  await page.getByTestId("prompt").fill("stop at three");
  await page.getByTestId("send").tap();
  await expect(page.getByTestId("transcript").locator(".bubble.user")).toHaveCount(2);
  await page.getByTestId("stop").tap();
  await expect(page.getByTestId("send")).toHaveText("Send");
});

test("offline for 30 seconds: the stream resumes without losing or repeating text", async ({ page, context, mobile }) => {
  test.setTimeout(120_000);
  await watchEventSources(page);
  await mobile.pair(page);
  await newThreadOnPhone(page);
  const words = Array.from({ length: 40 }, (_, n) => `w${n} `);
  await mobile.mock.push(slowText(words, 400));
  await page.getByTestId("prompt").fill("keep talking");
  await page.getByTestId("send").tap();
  const answer = page.getByTestId("transcript").locator(".bubble.agent");
  await expect(answer).toContainText("w2");

  // The network goes away (the phone sleeps or changes networks) and the
  // open stream with it; the turn runs on meanwhile and ends.
  await context.setOffline(true);
  await page.evaluate(() => {
    const source = (window as any).__sources.at(-1);
    source.close();
    source.onerror(new Event("error"));
  });
  await expect(page.getByTestId("connection")).toHaveText("reconnecting…");
  await page.waitForTimeout(30_000);
  await context.setOffline(false);

  await expect(page.getByTestId("connection")).toHaveText("live", { timeout: 15_000 });
  await expect(answer).toHaveText(words.join("").trim(), { timeout: 15_000 });
  await expect(page.getByTestId("transcript").locator(".bubble.user")).toHaveCount(1);
  await expect(answer).toHaveCount(1);
  // It came back by reopening the stream from where the page had got to.
  const opened: string[] = await page.evaluate(() => (window as any).__sources.map((s: EventSource) => s.url));
  expect(opened.length).toBeGreaterThanOrEqual(2);
  const since = (url: string) => Number(new URL(url).searchParams.get("since_seq"));
  expect(since(opened.at(-1)!)).toBeGreaterThan(since(opened[0]));
});

test("a revoked phone is told its session ended and how to pair again", async ({ page, mobile }) => {
  await mobile.pair(page, "Lost phone");
  const thread = await newThreadOnPhone(page);
  const { json: devices } = await mobile.v1("GET", "/v1/devices");
  const lost = devices.find((d: any) => d.name === "Lost phone");
  expect(lost, JSON.stringify(devices)).toBeTruthy();
  expect((await mobile.v1("DELETE", `/v1/devices/${lost.id}`)).status).toBe(200);

  const ended = page.getByTestId("session-ended");
  await expect(ended).toBeVisible({ timeout: 10_000 });
  await expect(ended).toContainText("session has ended");
  await expect(ended).toContainText("codewhale pair");
  await expect(page.getByTestId("connection")).toHaveText("session ended");
  await page.screenshot({ path: test.info().outputPath("phone-session-ended.png") });
  // Nothing works any more, and a reload is the pairing page again.
  await page.goto(`${mobile.origin}/mobile/threads/${thread}`);
  await expect(page.getByTestId("mobile-sign-in")).toBeVisible();
  await expect(page.locator("body")).not.toContainText(thread);
});

// The headless shell denies every notification permission: this test and
// "enabling notifications asks only on a tap" run in the full browser
// (the @full-chromium tag; playwright.config.ts).
test("notifications: announced in the background, and a click opens the thread", { tag: "@full-chromium" }, async ({ page, context, mobile }) => {
  await context.grantPermissions(["notifications"], { origin: mobile.origin });
  await recordNotifications(page);
  await mobile.pair(page);
  await expect(page.getByTestId("notification-status")).toHaveAttribute("data-support", "granted");
  const thread = await newThreadOnPhone(page);

  await mobile.mock.push(toolCall("exec_shell", { command: "echo notify-me" }), text("Done."));
  await page.getByTestId("prompt").fill("needs approval");
  await setHidden(page, true);
  await page.getByTestId("send").tap();
  await expect.poll(() => page.evaluate(() => (window as any).__notes.map((n: any) => n.title))).toEqual(["Approval needed: exec_shell"]);
  expect(await page.evaluate(() => (window as any).__notes[0].body)).toContain("echo notify-me");

  // A click brings the page forward on the thread.
  await page.evaluate(() => (window as any).__notes[0].note.onclick());
  await expect(page).toHaveURL(`${mobile.origin}/mobile/threads/${thread}`);
  await page.getByTestId("approval").getByTestId("allow").tap();
  await expect.poll(() => page.evaluate(() => (window as any).__notes.map((n: any) => n.title))).toContain("Turn finished");
  // Nothing is announced while the page is in front.
  await setHidden(page, false);
  await mobile.mock.push(text("Quiet."));
  await page.getByTestId("prompt").fill("again");
  await page.getByTestId("send").tap();
  await expect(page.getByTestId("transcript").locator(".bubble.agent").last()).toHaveText("Quiet.");
  expect(await page.evaluate(() => (window as any).__notes.length)).toBe(2);
});

test("without notifications: an in-page alert, a count in the title, a vibration", async ({ page, mobile }) => {
  await recordNotifications(page, { unavailable: true });
  await page.addInitScript(() => {
    (window as any).__buzz = 0;
    navigator.vibrate = () => (((window as any).__buzz += 1), true);
  });
  await mobile.pair(page);
  await expect(page.getByTestId("notification-status")).toHaveAttribute("data-support", "unavailable");
  await newThreadOnPhone(page);
  await mobile.mock.push(toolCall("exec_shell", { command: "echo fallback" }), text("Done."));
  await page.getByTestId("prompt").fill("needs approval");
  await setHidden(page, true);
  await page.getByTestId("send").tap();
  await expect.poll(() => page.title()).toBe("(1) codewhale");
  expect(await page.evaluate(() => (window as any).__buzz)).toBe(1);

  await setHidden(page, false);
  await expect.poll(() => page.title()).toBe("codewhale");
  const alerts = page.getByTestId("missed-alerts");
  await expect(alerts).toContainText("Approval needed: exec_shell");
  await alerts.getByTestId("dismiss-alerts").tap();
  await expect(alerts).toHaveCount(0);
});

test("enabling notifications asks only on a tap", { tag: "@full-chromium" }, async ({ page, context, mobile }) => {
  await mobile.pair(page);
  const status = page.getByTestId("notification-status");
  await expect(status).toHaveAttribute("data-support", "ask");
  await context.grantPermissions(["notifications"], { origin: mobile.origin });
  await page.getByTestId("enable-notifications").tap();
  await expect(status).toHaveAttribute("data-support", "granted");
  await expect(status).toHaveText("Notifications are on.");
});

test("screenshots of the phone layout, light and dark", async ({ page, mobile }) => {
  await mobile.pair(page);
  const { json: thread } = await mobile.v1("POST", "/v1/threads", { title: "Refactor the parser" });
  await mobile.v1("POST", "/v1/threads", { title: "Fix flaky test" });
  await mobile.mock.push(toolCall("exec_shell", { command: "cargo test -p parser" }), text("The parser tests pass."));
  await mobile.v1("POST", `/v1/threads/${thread.id}/turns`, { prompt: "Run the parser tests" });
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(mobile.origin + "/mobile");
    await page.locator("html[data-hydrated]").waitFor();
    await expect(page.getByTestId("thread-row")).toHaveCount(2);
    await page.screenshot({ path: test.info().outputPath(`phone-threads-${scheme}.png`) });
    await page.goto(`${mobile.origin}/mobile/threads/${thread.id}`);
    await expect(page.getByTestId("approval")).toBeVisible();
    await page.screenshot({ path: test.info().outputPath(`phone-approval-${scheme}.png`) });
  }
  await page.getByTestId("approval").getByTestId("allow").tap();
  await expect(page.getByTestId("transcript").locator(".bubble.agent")).toHaveText("The parser tests pass.");
});

test.describe("the desktop workbench pairs and manages phones", () => {
  test.use({ viewport: { width: 1280, height: 800 }, hasTouch: false, isMobile: false });

  test("pair a phone from the workbench, then rename and revoke it", async ({ page, browser, mobile }) => {
    await mobile.signInDesktop(page);
    await page.getByTestId("pair-phone").click();
    const dialog = page.getByRole("dialog", { name: "Pair a phone" });
    await expect(dialog.getByTestId("pairing-qr").locator("svg")).toBeVisible();
    const url = (await dialog.getByTestId("pairing-url").textContent())!;
    expect(url.startsWith(mobile.origin + "/__codewhale/pair/")).toBe(true);
    await expect(dialog.getByTestId("pairing-expiry")).toContainText("Works once");
    await page.screenshot({ path: test.info().outputPath("desktop-pairing.png") });

    // The phone scans it; the dialog notices.
    const phoneContext = await browser.newContext({ viewport: { width: 360, height: 640 }, hasTouch: true, isMobile: true });
    const phone = await phoneContext.newPage();
    await phone.goto(url);
    await expect(phone).toHaveURL(mobile.origin + "/mobile");
    await phone.locator("html[data-hydrated]").waitFor();
    await expect(dialog.getByTestId("paired")).toContainText("Paired:");
    await dialog.getByRole("button", { name: "Close" }).click();
    // The link was shown once and is kept nowhere (closing re-renders the
    // dialog without it: poll, the DOM changes after the click resolves).
    await expect.poll(() => page.content()).not.toContain(url);
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);
    const thread = await newThreadOnPhone(phone);

    await page.getByRole("link", { name: "Devices", exact: true }).click();
    const device = page.getByTestId("device");
    await expect(device).toHaveCount(1);
    await expect(device).toContainText("Last seen");
    await expect(device).toContainText("127.0.0.1");
    await device.getByTestId("rename-device").click();
    await device.getByLabel("Name").fill("Kitchen phone");
    await device.getByRole("button", { name: "Save" }).click();
    await expect(device.getByTestId("device-name")).toHaveText("Kitchen phone");
    await device.getByTestId("revoke-device").click();
    await device.getByTestId("confirm-revoke").click();
    await expect(page.getByTestId("no-devices")).toBeVisible();

    await expect(phone.getByTestId("session-ended")).toBeVisible({ timeout: 10_000 });
    await phone.goto(`${mobile.origin}/mobile/threads/${thread}`);
    await expect(phone.getByTestId("mobile-sign-in")).toBeVisible();
    await phoneContext.close();
  });
});
