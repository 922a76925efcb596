import { test, expect } from "./fixtures";
import { slowText, text } from "./support/replies";

// The automations page: a schedule previewed in words while it is typed,
// an automation created, run by hand and watched to its answer as the list
// refreshes itself, opened in its thread, paused and resumed. Then the
// tasks page: a running task seen live and stopped.

test("create an automation, see its next runs, run it and follow its run to the thread", async ({
  page,
  codewhale,
}) => {
  await codewhale.signIn(page);
  await page.goto(codewhale.origin + "/automations");
  await page.locator("html[data-hydrated]").waitFor();
  await expect(page.getByTestId("no-automations")).toBeVisible();

  await page.getByTestId("new-automation").click();
  await page.getByTestId("automation-name").fill("Nightly report");
  await page.getByTestId("automation-prompt").fill("Write the nightly report");
  await page.getByTestId("automation-when").selectOption("cron");
  const preview = page.getByTestId("schedule-preview");
  await page.getByTestId("automation-cron").fill("every day please");
  await expect(preview.locator(".error")).toContainText("5-field");
  await page.getByTestId("automation-cron").fill("30 6 * * 1-5");
  await page.getByTestId("automation-timezone").fill("UTC");
  await expect(preview).toContainText("06:30");
  await expect(preview.locator(".next-runs li")).toHaveCount(3);
  // In words: a weekday, a date and when that is from now.
  await expect(preview.locator(".next-runs li").first()).toHaveText(
    /^(Mon|Tue|Wed|Thu|Fri) \d{1,2} \w{3}, 06:30 \(in .+\)$/,
  );
  await page.getByTestId("create-automation").click();

  const item = page.getByTestId("automation");
  await expect(item).toHaveCount(1);
  await expect(item.getByTestId("automation-title")).toHaveText("Nightly report");
  await expect(item.getByTestId("automation-next")).toContainText("Next run:");
  await expect(item).toContainText("No runs yet.");

  await codewhale.mock.push(slowText(["The nightly ", "report ", "is ready."], 300));
  await item.getByTestId("run-automation").click();
  const run = item.getByTestId("automation-run");
  await expect(run).toHaveCount(1);
  await expect(run).toContainText("by hand");
  // The page refreshes itself: the run goes from running to completed.
  await expect(run).toHaveAttribute("data-status", "running");
  await expect(run).toHaveAttribute("data-status", "completed", { timeout: 15_000 });

  await item.getByTestId("toggle-automation").click();
  await expect(item).toHaveAttribute("data-state", "paused");
  await expect(item.getByTestId("automation-next")).toContainText("Paused");
  await item.getByTestId("toggle-automation").click();
  await expect(item).toHaveAttribute("data-state", "active");

  await run.getByTestId("run-thread").click();
  await expect(page).toHaveURL(/\/threads\/thr_/);
  await expect(page.locator(".transcript")).toContainText("The nightly report is ready.");
});

test("the tasks page shows a task running live and stops it", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  await page.goto(codewhale.origin + "/tasks");
  await page.locator("html[data-hydrated]").waitFor();
  await expect(page.getByTestId("no-tasks")).toBeVisible();
  await codewhale.mock.push(slowText(Array.from({ length: 60 }, (_, i) => `w${i} `), 200));
  const created = await codewhale.api(page, "POST", "/v1/tasks", { prompt: "a long job" });
  expect(created.status).toBe(201);

  const task = page.getByTestId("task");
  await expect(task).toHaveAttribute("data-status", "running", { timeout: 10_000 });
  await expect(task).toContainText("a long job");
  await task.getByTestId("cancel-task").click();
  await expect(task).toHaveAttribute("data-status", "cancelled", { timeout: 10_000 });
  await expect(task.getByTestId("cancel-task")).toHaveCount(0);
  await task.getByTestId("task-thread").click();
  await expect(page).toHaveURL(/\/threads\/thr_/);
});
