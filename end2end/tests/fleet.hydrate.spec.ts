import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect } from "./fixtures";
import { keyed, slowText, text } from "./support/replies";

// The fleet: three workers started from the form in a git workspace, two
// at a time, each in its own worktree and branch. The grid updates itself
// as they run; one is interrupted and restarted; the worktrees removed.

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i} `);

test("start a fleet and watch its grid update live: interrupt, restart, clean up", async ({ page, codewhale }) => {
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: codewhale.workspace });
  git("init", "-q", "-b", "main");
  writeFileSync(join(codewhale.workspace, "README"), "base\n");
  git("add", ".");
  git("commit", "-q", "-m", "base");

  await codewhale.mock.push(
    keyed("fleet-alpha", slowText(words(25), 200)),
    keyed("fleet-beta", slowText(words(300), 200)),
    keyed("fleet-gamma", text("gamma finished")),
  );
  await codewhale.signIn(page);
  await page.goto(codewhale.origin + "/fleet");
  await page.locator("html[data-hydrated]").waitFor();
  await expect(page.getByTestId("no-fleet-runs")).toBeVisible();
  await page.getByTestId("new-fleet").click();
  await expect(page.getByTestId("fleet-workspace")).toHaveValue(/codewhale-e2e-workspace-/);
  await page.getByTestId("fleet-prompts").fill("fleet-alpha: tidy\nfleet-beta: think hard\n\nfleet-gamma: check");
  await page.getByTestId("fleet-parallel").fill("2");
  // The run's page follows the run's event stream (the poll is a fallback).
  const followed = page.waitForRequest((r) => /\/v1\/fleet\/runs\/fleet_[0-9a-f]+\/events\?replay_limit=0$/.test(r.url()));
  await page.getByTestId("start-fleet").click();
  await expect(page).toHaveURL(/\/fleet\/fleet_[0-9a-f]+$/);
  const runId = page.url().split("/").pop()!;
  expect((await followed).url()).toContain(`/v1/fleet/runs/${runId}/events`);

  const workers = page.getByTestId("fleet-worker");
  await expect(workers).toHaveCount(3);
  const [alpha, beta, gamma] = [workers.nth(0), workers.nth(1), workers.nth(2)];
  await expect(alpha.getByTestId("worker-branch")).toHaveText(`codewhale/${runId}/1`);
  // Two at a time: gamma waits while alpha and beta run.
  await expect(alpha).toHaveAttribute("data-status", "running", { timeout: 10_000 });
  await expect(beta).toHaveAttribute("data-status", "running", { timeout: 10_000 });
  await expect(gamma).toHaveAttribute("data-status", "queued");
  await expect(page.getByTestId("fleet-run-status")).toHaveText("running");

  // Interrupt beta: gamma takes its place and finishes.
  await beta.getByTestId("worker-action").click();
  await expect(beta).toHaveAttribute("data-status", "interrupted", { timeout: 10_000 });
  await expect(gamma).toHaveAttribute("data-status", "completed", { timeout: 15_000 });
  await expect(gamma.getByTestId("worker-answer")).toHaveText("gamma finished");
  await expect(alpha).toHaveAttribute("data-status", "completed", { timeout: 15_000 });
  await expect(page.getByTestId("fleet-run-status")).toHaveText("failed");

  // Restarted, beta runs again and the run completes.
  await codewhale.mock.push(keyed("fleet-beta", text("beta finished")));
  await expect(beta.getByTestId("worker-action")).toHaveText("Restart");
  await beta.getByTestId("worker-action").click();
  await expect(beta).toHaveAttribute("data-status", "completed", { timeout: 15_000 });
  await expect(beta).toContainText("attempt 2");
  await expect(beta.getByTestId("worker-answer")).toHaveText("beta finished");
  await expect(page.getByTestId("fleet-run-status")).toHaveText("completed");
  // Nothing was written: each branch is its base.
  await expect(alpha.getByTestId("worker-diff-stat")).toHaveText("0 file(s) changed, +0 −0");

  await page.getByTestId("clean-up-fleet").click();
  await expect(page.locator(".background-page")).toContainText("worktrees removed, branches kept");
  const branches = execFileSync("git", ["branch", "--list", "codewhale/*"], { cwd: codewhale.workspace }).toString();
  expect(branches.trim().split("\n")).toHaveLength(3);

  await beta.getByTestId("worker-thread").click();
  await expect(page).toHaveURL(/\/threads\/thr_/);
  await expect(page.locator(".transcript")).toContainText("beta finished");
});
