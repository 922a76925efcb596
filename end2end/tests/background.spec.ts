import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect } from "./fixtures";
import { keyed, text } from "./support/replies";

// Runs hydrated and with JavaScript off: the tasks, automations and skills pages
// are rendered on the server, so what ran overnight reads the same.

test("a finished task and an automation read the same without JavaScript", async ({ page, codewhale }) => {
  await codewhale.signIn(page);
  await codewhale.mock.push(text("Done while you slept."));
  const created = await codewhale.api(page, "POST", "/v1/tasks", { prompt: "overnight job" });
  let done = created.json;
  for (let i = 0; i < 100 && done.status !== "completed"; i++) {
    await page.waitForTimeout(100);
    done = (await codewhale.api(page, "GET", `/v1/tasks/${created.json.id}`)).json;
  }
  expect(done.status).toBe("completed");
  await page.goto(codewhale.origin + "/tasks");
  const task = page.getByTestId("task");
  await expect(task).toHaveAttribute("data-status", "completed");
  await expect(task).toContainText("Done while you slept.");
  await expect(task.getByTestId("task-thread")).toHaveAttribute("href", `/threads/${done.thread_id}`);

  const auto = await codewhale.api(page, "POST", "/v1/automations", {
    name: "Weekly cleanup",
    prompt: "tidy up",
    interval_seconds: 7 * 24 * 3600,
  });
  expect(auto.status).toBe(201);
  await page.goto(codewhale.origin + "/automations");
  const item = page.getByTestId("automation");
  await expect(item.getByTestId("automation-title")).toHaveText("Weekly cleanup");
  await expect(item).toContainText("Every 7 days");
  await expect(item.getByTestId("automation-next")).toContainText(/\(in [67] days\)/);

  // A fleet run that finished reads the same too.
  await codewhale.mock.push(keyed("fleet-nightly", text("Nightly fleet done.")));
  const fleet = await codewhale.api(page, "POST", "/v1/fleet/runs", {
    workers: [{ prompt: "fleet-nightly" }],
    workspace: codewhale.workspace,
    isolation: "shared",
  });
  expect(fleet.status).toBe(201);
  const runId = fleet.json.run.id;
  let run = fleet.json;
  for (let i = 0; i < 100 && !run.run.finished_at; i++) {
    await page.waitForTimeout(100);
    run = (await codewhale.api(page, "GET", `/v1/fleet/runs/${runId}`)).json;
  }
  expect(run.run.status).toBe("completed");
  await page.goto(codewhale.origin + "/fleet");
  await expect(page.getByTestId("fleet-run")).toHaveAttribute("data-status", "completed");
  await page.goto(codewhale.origin + `/fleet/${runId}`);
  const worker = page.getByTestId("fleet-worker");
  await expect(worker).toHaveAttribute("data-status", "completed");
  await expect(worker.getByTestId("worker-answer")).toHaveText("Nightly fleet done.");
  await expect(worker.getByTestId("worker-thread")).toHaveAttribute("href", `/threads/${run.workers[0].thread_id}`);

  // The skills page too: a disabled skill says so without JavaScript.
  mkdirSync(join(codewhale.home, "skills", "night-shift"), { recursive: true });
  writeFileSync(
    join(codewhale.home, "skills", "night-shift", "SKILL.md"),
    "---\nname: night-shift\ndescription: What to do overnight.\n---\nBody.\n",
  );
  expect((await codewhale.api(page, "PATCH", "/v1/skills/night-shift", { enabled: false })).status).toBe(200);
  await page.goto(codewhale.origin + "/skills");
  const skill = page.getByTestId("skill");
  await expect(skill).toHaveAttribute("data-enabled", "false");
  await expect(skill).toContainText("What to do overnight.");

  // The MCP servers page: a server's state and last error, and only the
  // names of its variables.
  const added = await codewhale.api(page, "POST", "/v1/apps/mcp/servers", {
    name: "nightly", command: "/nonexistent/mcp-server", env: { NIGHT_TOKEN: "night-secret-value" },
  });
  expect(added.status).toBe(201);
  await codewhale.api(page, "GET", "/v1/apps/mcp/tools?server=nightly");
  await page.goto(codewhale.origin + "/mcp");
  const server = page.getByTestId("mcp-server");
  await expect(server).toHaveAttribute("data-status", "failed");
  await expect(server.getByTestId("mcp-last-error")).toContainText("cannot start");
  await expect(server.getByTestId("mcp-values")).toHaveText("variables: NIGHT_TOKEN");
  expect(await page.content()).not.toContain("night-secret-value");
});
