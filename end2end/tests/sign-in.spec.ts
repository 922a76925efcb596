import { test, expect } from "./fixtures";

// Runs hydrated and with JavaScript off: sign-in and the server-rendered
// page work either way.

test("a visitor without a session sees how to get in, and no data", async ({ page, codewhale }) => {
  const response = await page.goto(codewhale.origin + "/");
  expect(response?.status()).toBe(200);
  await expect(page.getByRole("heading", { name: "codewhale" })).toBeVisible();
  await expect(page.getByText("not signed in")).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Threads" })).toHaveCount(0);
});

test("the one-time link signs in once, then is refused", async ({ page, context, codewhale }) => {
  const response = await page.goto(codewhale.launchUrl);
  expect(response?.status()).toBe(200);
  await expect(page).toHaveURL(codewhale.origin + "/");
  await expect(page.getByRole("heading", { name: "Start a thread" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Threads" })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("workbench.png"), fullPage: true });

  const cookies = await context.cookies(codewhale.origin);
  const session = cookies.find((c) => c.name === "codewhale_web_session");
  expect(session).toBeDefined();
  expect(session!.httpOnly).toBe(true);
  expect(session!.sameSite).toBe("Strict");
  expect(session!.path).toBe("/");

  const again = await page.goto(codewhale.launchUrl);
  expect(again?.status()).toBe(401);
  await expect(page.getByRole("heading", { name: "Sign-in refused" })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("refused.png") });

  // Nothing secret is readable by page script or kept in browser storage.
  const exposed = await page.evaluate(() => ({
    cookie: document.cookie,
    local: Object.keys(localStorage).length,
    session: Object.keys(sessionStorage).length,
  })).catch(() => null); // JavaScript off: nothing can read anything
  if (exposed) expect(exposed).toEqual({ cookie: "", local: 0, session: 0 });
});
