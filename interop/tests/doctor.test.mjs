// `codewhale doctor --json` validated against docs/doctor.schema.json with
// ajv (JSON Schema 2020-12; ajv comes with @modelcontextprotocol/sdk).

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";

const CODEWHALE_BIN = resolve(process.env.CODEWHALE_BIN ?? "../target/release/codewhale");
const schema = JSON.parse(readFileSync(new URL("../../docs/doctor.schema.json", import.meta.url), "utf8"));

function doctor(home, workspace) {
  const out = execFileSync(CODEWHALE_BIN, ["doctor", "--json", "--offline", "--workspace", workspace], {
    env: { PATH: process.env.PATH, HOME: workspace, CODEWHALE_HOME: home },
    encoding: "utf8",
  });
  return JSON.parse(out);
}

test("doctor --json matches docs/doctor.schema.json, fresh home and configured", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "codewhale-doctor-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
  const fresh = doctor(join(dir, "home"), dir);
  assert.ok(validate(fresh), JSON.stringify(validate.errors, null, 2));
  assert.ok(!existsSync(join(dir, "home")), "doctor created the home");
  writeFileSync(join(dir, "config.toml"), `[providers.local]\nbase_url = "http://127.0.0.1:9"\nmodels = ["m"]\n`);
  writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { files: { command: "x", env: { TOKEN: "t" } } } }));
  const configured = doctor(dir, dir);
  assert.ok(validate(configured), JSON.stringify(validate.errors, null, 2));
  assert.equal(configured.config_present, true);
  assert.deepEqual(configured.mcp.servers.map((s) => s.name), ["files"]);
  assert.equal(configured.provider.reachability.status, "skipped");
});
