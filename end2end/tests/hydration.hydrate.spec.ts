import { test, expect } from "./fixtures";

// Needs the wasm bundle: skipped in the no-JavaScript project.

test("the page hydrates and its controls talk to the server", async ({ page, codewhale }) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") violations.push(message.text());
  });
  page.on("pageerror", (error) => violations.push(error.message));

  await page.goto(codewhale.launchUrl);
  await expect(page).toHaveURL(codewhale.origin + "/");
  await page.locator("html[data-hydrated]").waitFor();

  const status = page.getByTestId("connection-status");
  await expect(status).toHaveText("Not checked yet.");
  await page.getByRole("button", { name: "Check connection" }).click();
  await expect(status).toHaveText(/Connected: the server answered in \d+ ms\./);
  await page.screenshot({ path: test.info().outputPath("hydrated.png"), fullPage: true });

  // The strict CSP let the hydration script run and blocked nothing of ours.
  expect(violations).toEqual([]);
});

test("without the wasm bundle the button does nothing", async ({ browser, codewhale }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(codewhale.launchUrl);
  await page.getByRole("button", { name: "Check connection" }).click();
  await expect(page.getByTestId("connection-status")).toHaveText("Not checked yet.");
  await expect(page.locator("html[data-hydrated]")).toHaveCount(0);
  await context.close();
});
