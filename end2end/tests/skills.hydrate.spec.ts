import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect } from "./fixtures";
import { text } from "./support/replies";
import { createThread, startTurn, waitForTurn } from "./support/threads";

// The skills page: the user's skill and the project's listed with where
// they live, one switched off (and the model no longer offered it), a
// folder imported by path, and a bad import refused with the reason.

const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nDo the ${name} thing.\n`;

test("skills are listed, toggled and imported, and only enabled ones reach the model", async ({ page, codewhale }) => {
  mkdirSync(join(codewhale.home, "skills", "pdf-tools"), { recursive: true });
  writeFileSync(join(codewhale.home, "skills", "pdf-tools", "SKILL.md"), skill("pdf-tools", "Fill and merge PDFs."));
  mkdirSync(join(codewhale.workspace, ".codewhale", "skills", "house-style"), { recursive: true });
  writeFileSync(
    join(codewhale.workspace, ".codewhale", "skills", "house-style", "SKILL.md"),
    skill("house-style", "How this project writes docs."),
  );
  await codewhale.signIn(page);
  await page.goto(codewhale.origin + "/skills");
  await page.locator("html[data-hydrated]").waitFor();
  const rows = page.getByTestId("skill");
  await expect(rows).toHaveCount(2);
  const house = rows.filter({ hasText: "house-style" });
  await expect(house).toContainText("this project's");
  await expect(house).toContainText("How this project writes docs.");
  await expect(rows.filter({ hasText: "pdf-tools" })).toContainText("yours");

  await house.getByTestId("toggle-skill").click();
  await expect(house.getByTestId("skill-state")).toHaveText("disabled");
  await expect(house).toHaveAttribute("data-enabled", "false");
  // Saved for every process: /v1 reads the same file.
  const listed = await codewhale.api(page, "GET", "/v1/skills");
  expect(listed.json.find((s: any) => s.name === "house-style").enabled).toBe(false);

  const source = join(codewhale.home, "to-import");
  mkdirSync(source, { recursive: true });
  writeFileSync(join(source, "SKILL.md"), skill("release-notes", "Write release notes."));
  await page.getByTestId("import-skill").click();
  await page.getByTestId("skill-path").fill(join(source, "missing"));
  await page.getByTestId("import-skill-submit").click();
  await expect(page.locator(".automation-form [role=alert]")).toContainText("cannot read");
  await page.getByTestId("skill-path").fill(source);
  await page.getByTestId("import-skill-submit").click();
  await expect(page.getByTestId("skill-imported")).toHaveText("Imported release-notes.");
  await expect(rows).toHaveCount(3);
  await expect(rows.filter({ hasText: "release-notes" })).toHaveAttribute("data-enabled", "true");

  // The model is offered the enabled skills by name, not the disabled one.
  const thread = await createThread(codewhale.api, page);
  await codewhale.mock.push(text("Noted."));
  const started = await startTurn(codewhale.api, page, thread.id, "Hello");
  const turn = await waitForTurn(codewhale.api, page, thread.id, started.id);
  expect(turn.status, turn.error ?? "").toBe("completed");
  const [request] = await codewhale.mock.requests();
  const system = request.messages.find((m: any) => m.role === "system").content;
  expect(system).toContain("- pdf-tools: Fill and merge PDFs.");
  expect(system).toContain("- release-notes: Write release notes.");
  expect(system).not.toContain("house-style");

  // The list is rendered on the server too.
  await page.reload();
  await expect(rows).toHaveCount(3);
});
