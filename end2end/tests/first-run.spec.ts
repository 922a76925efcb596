import { test, expect } from "./fixtures";

// A first run with nothing configured: the page says what to do. Runs
// hydrated and with JavaScript off.

test.use({ withProvider: false });

test("with no provider configured the start page says how to add one", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  await expect(page.getByTestId("no-threads")).toHaveText("No threads yet. Create one above.");
  await expect(page.getByTestId("no-provider")).toHaveText(
    "No provider configured: set DEEPSEEK_API_KEY or add a provider to config.toml.",
  );
  await page.screenshot({ path: test.info().outputPath("first-run.png"), fullPage: true });
});
