import { test, expect, MOCK_LARGE_PRICE } from "./fixtures";
import { text, withUsage } from "./support/replies";
import { createThread, runTurn } from "./support/threads";

// Runs hydrated and with JavaScript off: the usage page, chart included, is
// rendered on the server, and its range choices are plain links.

const scripted = [
  { prompt_tokens: 1200, completion_tokens: 300 },
  { prompt_tokens: 800, completion_tokens: 150 },
];
const input = scripted.reduce((sum, u) => sum + u.prompt_tokens, 0);
const output = scripted.reduce((sum, u) => sum + u.completion_tokens, 0);
const cost = (input * MOCK_LARGE_PRICE.input + output * MOCK_LARGE_PRICE.output) / 1_000_000;

test("two turns show up as today's bar, by model, by thread and in the cost", async ({
  page,
  codewhale,
}, testInfo) => {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });

  await codewhale.signIn(page);
  await codewhale.mock.push(...scripted.map((usage, i) => withUsage(text(`Answer ${i + 1}`), usage)));
  const thread = await createThread(codewhale.api, page);
  await runTurn(codewhale.api, page, thread.id, "First question");
  await runTurn(codewhale.api, page, thread.id, "Second question");
  const requests = await codewhale.mock.requests();
  expect(requests.map((r) => r.model)).toEqual(["mock-large", "mock-large"]);

  await page.goto(codewhale.origin + "/usage");
  const chart = page.locator('[data-test="usage-chart"]');
  const bars = chart.locator('[data-test="usage-bar"]');
  // Day buckets are UTC days, like the server's.
  const today = new Date().toISOString().slice(0, 10);
  await expect(bars).toHaveCount(30);
  await expect(bars.last()).toHaveAttribute("data-day", today);
  await expect(chart.locator(`[data-test="usage-bar"][data-day="${today}"]`)).toHaveAttribute(
    "data-tokens",
    String(input + output),
  );
  await expect(chart.getByRole("img")).toHaveAttribute(
    "aria-label",
    new RegExp(`${(input + output).toLocaleString("en-US")} tokens \\(`),
  );

  await expect(page.locator('[data-test="usage-total-tokens"]')).toHaveText(
    (input + output).toLocaleString("en-US"),
  );
  await expect(page.locator('[data-test="usage-cost"]')).toHaveText(`$${cost.toFixed(4)}`);

  const models = page.locator('[data-test="usage-by-model"] [data-test="usage-row"]');
  await expect(models).toHaveCount(1);
  await expect(models.first()).toHaveAttribute("data-key", "mock-large");
  await expect(models.first()).toContainText("mock-large");

  const threads = page.locator('[data-test="usage-by-thread"] [data-test="usage-row"]');
  await expect(threads).toHaveCount(1);
  await expect(threads.first().locator("a")).toHaveAttribute("href", `/threads/${thread.id}`);

  await page.screenshot({ path: testInfo.outputPath("usage.png"), fullPage: true });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: testInfo.outputPath("usage-dark.png"), fullPage: true });
  await page.emulateMedia({ colorScheme: "light" });

  // A shorter range: a link, so it works with JavaScript off too.
  await page.locator('[data-test="usage-range"]', { hasText: "7 days" }).click();
  await expect(page).toHaveURL(/\/usage\?days=7$/);
  await expect(bars).toHaveCount(7);
  await expect(bars.last()).toHaveAttribute("data-tokens", String(input + output));
  await expect(page.locator('[data-test="usage-range"][aria-current="page"]')).toHaveText("7 days");

  expect(problems).toEqual([]);
});

test("before any turn the page says how usage appears", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  await page.goto(codewhale.origin + "/usage?days=90");
  await expect(page.locator('[data-test="usage-empty"]')).toContainText(
    "No usage yet: run a turn and it shows up here.",
  );
  await expect(page.locator('[data-test="usage-chart"]')).toHaveCount(0);
  await expect(page.locator('[data-test="usage-range"][aria-current="page"]')).toHaveText("90 days");
});

test("a visitor without a session sees no usage", async ({ page, codewhale }) => {
  const response = await page.goto(codewhale.origin + "/usage");
  expect(response?.status()).toBe(200);
  await expect(page.locator('[data-test="usage-chart"]')).toHaveCount(0);
  await expect(page.locator('[data-test="usage-total-tokens"]')).toHaveCount(0);
});
