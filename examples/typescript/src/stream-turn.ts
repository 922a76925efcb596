// Create a thread, stream one turn's answer to stdout, and answer the
// approvals it asks for: the codewhale runtime SDK as an integrator uses it.
//
//   CODEWHALE_URL=http://127.0.0.1:7878 CODEWHALE_TOKEN=... \
//     node dist/stream-turn.js "Add a README"
//
// Approvals: asked on the terminal when stdin is one; otherwise
// CODEWHALE_APPROVE=allow|deny decides (deny when unset).
// CODEWHALE_WORKSPACE picks the thread's workspace (default: the server's).

import {
  createRuntimeClient,
  isResync,
  RuntimeApiError,
  type ApprovalRequiredPayload,
  type TurnRecord,
} from "@codewhale/runtime-sdk";
import { createInterface } from "node:readline/promises";

const baseUrl = process.env.CODEWHALE_URL;
const token = process.env.CODEWHALE_TOKEN;
if (!baseUrl || !token) {
  console.error("Set CODEWHALE_URL (what `codewhale app-server --http` prints) and CODEWHALE_TOKEN (its --auth-token).");
  process.exit(2);
}
const prompt = process.argv.slice(2).join(" ") || "Say hello.";

const client = createRuntimeClient({ baseUrl, token });

async function decide(request: ApprovalRequiredPayload): Promise<"allow" | "deny"> {
  console.error(`\n[approval] ${request.tool_name}: ${request.description}`);
  if (process.stdin.isTTY) {
    const terminal = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await terminal.question("Allow? [y/N] ");
    terminal.close();
    return /^y(es)?$/i.test(answer.trim()) ? "allow" : "deny";
  }
  return process.env.CODEWHALE_APPROVE === "allow" ? "allow" : "deny";
}

async function main(): Promise<number> {
  const info = await client.runtimeInfo();
  console.error(`[codewhale ${info.codewhale_version}, API ${info.runtime_api_version}]`);
  const workspace = process.env.CODEWHALE_WORKSPACE;
  const thread = await client.createThread({ title: "SDK example", ...(workspace ? { workspace } : {}) });
  console.error(`[thread ${thread.id}]`);

  // Subscribe from the snapshot's cursor before starting: nothing is missed,
  // and the stream resumes by itself if the connection drops.
  const { latest_seq } = await client.getThread(thread.id);
  const stop = new AbortController();
  const events = client.events(thread.id, { sinceSeq: latest_seq, signal: stop.signal });
  const { turn } = await client.startTurn(thread.id, prompt);

  let finished: TurnRecord | undefined;
  for await (const item of events) {
    if (isResync(item)) {
      console.error("\n[resynced from a snapshot]");
      continue;
    }
    // `item.event` narrows `item.payload` to that event's payload type.
    switch (item.event) {
      case "item.delta":
        if (item.payload.kind === "agent_message") process.stdout.write(item.payload.delta);
        break;
      case "approval.required": {
        const decision = await decide(item.payload);
        await client.decideApproval(item.payload.approval_id, decision);
        console.error(`[${decision === "allow" ? "allowed" : "denied"}]`);
        break;
      }
      case "item.completed":
        if (item.payload.item.kind === "file_change") console.error(`\n[changed] ${item.payload.item.summary}`);
        break;
      case "turn.completed":
        if (item.turn_id === turn.id) finished = item.payload.turn;
        break;
    }
    if (finished) break;
  }
  process.stdout.write("\n");
  if (!finished) return 1;
  const usage = finished.usage;
  console.error(`[turn ${finished.status}: ${usage.input_tokens} tokens in, ${usage.output_tokens} out]`);
  return finished.status === "completed" ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof RuntimeApiError) console.error(`codewhale said ${error.status} (${error.kind}): ${error.message}`);
    // Only the message: a whole error object (its cause, its fields) is not meant for a terminal.
    else console.error(error instanceof Error ? `${error.name}: ${error.message}` : "failed");
    process.exit(1);
  },
);
