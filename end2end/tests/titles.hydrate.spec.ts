import { test, expect, MOCK_MODELS } from "./fixtures";
import { slowText, text } from "./support/replies";

// What a new thread shows before anyone names it: the runtime titles it from
// the first prompt (header and rail alike, live), and the model chip names
// the model its turns use, never a placeholder.

test("the first prompt titles the thread in header and rail; the chip names the model", async ({
  page,
  codewhale,
}) => {
  await codewhale.signIn(page);
  await page.getByTestId("new-thread").click();
  await page.getByRole("button", { name: "Create thread" }).click();
  await expect(page).toHaveURL(/\/threads\/thr_/);
  await expect(page.getByTestId("connection")).toHaveText("live");
  const id = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.getByTestId("thread-title")).toHaveText("Untitled thread");
  // No model picked: the configured default provider's first model.
  await expect(page.getByTestId("model")).toHaveText(MOCK_MODELS[0]);

  const row = page.getByTestId("thread-row").filter({ has: page.locator(`[href$="${id}"]`) });
  await codewhale.mock.push(slowText(["Looking ", "into ", "it."], 400), text("Second answer."));
  await page.getByTestId("prompt").fill("  Why is   the release build\nso slow on CI?");
  await page.getByTestId("prompt").press("Control+Enter");
  const title = "Why is the release build";
  // Live, while the turn still runs: the title arrives with its start.
  await expect(page.getByTestId("stop")).toBeVisible();
  await expect(page.getByTestId("thread-title")).toHaveText(title);
  await expect(row.locator(".row-title")).toHaveText(title);
  await expect(page.getByTestId("stop")).toHaveCount(0);

  // A second prompt leaves it; a reload shows the same in both places.
  await page.getByTestId("prompt").fill("And on my laptop?");
  await page.getByTestId("prompt").press("Control+Enter");
  await expect(page.getByTestId("transcript")).toContainText("Second answer.");
  await page.reload();
  await page.locator("html[data-hydrated]").waitFor();
  await expect(page.getByTestId("thread-title")).toHaveText(title);
  await expect(row.locator(".row-title")).toHaveText(title);

  // A model set on the thread (here through the API) shows up live.
  await expect(page.getByTestId("connection")).toHaveText("live");
  const patched = await codewhale.api(page, "PATCH", `/v1/threads/${id}`, { model: MOCK_MODELS[1] });
  expect(patched.status).toBe(200);
  await expect(page.getByTestId("model")).toHaveText(MOCK_MODELS[1]);
});
