// client.events() against the real binary: a turn's text, a connection cut
// mid-stream, a previous_seq gap refilled from the replay, and the snapshot
// when the replay cannot refill.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRuntimeClient, isResync } from "../dist/index.js";
import { slowText, text } from "./support/replies.mjs";
import { startRuntime } from "./support/runtime.mjs";
import { agentText, assertContiguous, collect, turnCompleted } from "./support/stream.mjs";
import { frameEvent, tapFetch } from "./support/tap.mjs";

// The event names of the committed document (the generated union's members).
const documented = new Set(
  Object.keys(
    JSON.parse(readFileSync(new URL("../../../openapi/codewhale-v1.json", import.meta.url), "utf8")).components.schemas
      .StreamEvent.discriminator.mapping,
  ),
);

const fast = { initialDelayMs: 20, maxDelayMs: 200, maxRetries: 20 };

async function setup(t, fetch) {
  const runtime = await startRuntime();
  t.after(() => runtime.stop());
  const client = createRuntimeClient({ baseUrl: runtime.url, token: runtime.token, ...(fetch ? { fetch } : {}) });
  return { runtime, client };
}

/** Everything the server has for the thread, read in one fresh stream. */
async function fullReplay(client, threadId, turnId) {
  return collect(client.events(threadId, { sinceSeq: 0 }), turnCompleted(turnId));
}

test("streams a turn's text, in order, from the snapshot's latest_seq", async (t) => {
  const { runtime, client } = await setup(t);
  const thread = await client.createThread({ title: "streaming" });
  const snapshot = await client.getThread(thread.id);
  await runtime.mock.push(slowText(["The answer ", "is ", "forty-two."], 30));
  const events = client.events(thread.id, { sinceSeq: snapshot.latest_seq });
  const started = await client.startTurn(thread.id, "What is the answer?");
  const items = await collect(events, turnCompleted(started.turn.id));

  assert.equal(agentText(items), "The answer is forty-two.");
  assertContiguous(assert, items, snapshot.latest_seq);
  assert.equal(items[0].event, "turn.started");
  const done = items.at(-1);
  assert.equal(done.payload.turn.status, "completed");
  assert.equal(done.payload.turn.effective_model, "mock-large");
  for (const item of items) {
    assert.ok(documented.has(item.event), `${item.event} is in the document`);
    assert.equal(item.thread_id, thread.id);
    assert.equal(item.schema_version, 1);
    assert.equal(item.kind, item.event);
  }
  // The server's own record agrees with what was streamed.
  const after = await client.getThread(thread.id);
  assert.equal(after.latest_seq, done.seq);
  assert.equal(after.items.find((i) => i.kind === "agent_message").detail, "The answer is forty-two.");
});

test("a connection cut mid-stream resumes from the last delivered seq without loss or duplicate", async (t) => {
  const fetch = tapFetch();
  const { runtime, client } = await setup(t, fetch);
  const thread = await client.createThread({});
  const parts = ["one ", "two ", "three ", "four ", "five ", "six ", "seven ", "eight."];
  await runtime.mock.push(slowText(parts, 60));
  const reconnects = [];
  const events = client.events(thread.id, { reconnect: fast, onReconnect: (r) => reconnects.push(r) });
  const started = await client.startTurn(thread.id, "count");
  let deltas = 0;
  let cutAt;
  const items = await collect(events, turnCompleted(started.turn.id), {
    onItem: (item) => {
      if (item.event === "item.delta" && ++deltas === 3) {
        cutAt = item.seq;
        fetch.cutAll(); // the socket goes away while the model is still talking
      }
    },
  });

  assert.ok(cutAt, "the stream was cut");
  assert.equal(reconnects[0]?.reason, "error");
  assert.equal(reconnects[0].sinceSeq, cutAt);
  assert.ok(fetch.streams.length >= 2);
  assert.equal(fetch.streams[1].sinceSeq, cutAt, "the second connection resumes after the last delivered seq");
  assert.ok(items.some((i) => i.event === "item.delta" && i.seq > cutAt), "deltas arrived after the cut");

  assertContiguous(assert, items, 0);
  assert.equal(new Set(items.map((i) => i.seq)).size, items.length, "no duplicate");
  assert.equal(agentText(items), parts.join(""));
  const replay = await fullReplay(createRuntimeClient({ baseUrl: runtime.url, token: runtime.token }), thread.id, started.turn.id);
  assert.deepEqual(items.map((i) => i.seq), replay.map((i) => i.seq), "exactly the server's events");
});

test("a previous_seq gap (an event lost on the way) is refilled from the replay", async (t) => {
  let dropped;
  let deltas = 0;
  const fetch = tapFetch({
    // A lossy proxy: the first connection loses the second text delta.
    dropFrame: (frame, stream) => {
      const event = frameEvent(frame);
      if (dropped || stream !== fetch.streams[0] || event?.event !== "item.delta") return false;
      if (++deltas !== 2) return false;
      dropped = event;
      return true;
    },
  });
  const { runtime, client } = await setup(t, fetch);
  const thread = await client.createThread({});
  await runtime.mock.push(slowText(["a", "b", "c", "d"], 50));
  const reconnects = [];
  const events = client.events(thread.id, { reconnect: fast, onReconnect: (r) => reconnects.push(r) });
  const started = await client.startTurn(thread.id, "letters");
  const items = await collect(events, turnCompleted(started.turn.id));

  assert.ok(dropped, "the proxy dropped an event");
  const gap = reconnects.find((r) => r.reason === "gap");
  assert.ok(gap, "the gap was noticed");
  assert.equal(gap.sinceSeq, dropped.previous_seq, "refilled from the last delivered seq");
  assert.equal(fetch.streams[1].sinceSeq, dropped.previous_seq);
  assert.ok(items.some((i) => i.seq === dropped.seq), "the lost event was delivered");
  assert.ok(!items.some(isResync), "no snapshot was needed");
  assertContiguous(assert, items, 0);
  assert.equal(agentText(items), "abcd");
});

test("when the replay cannot refill a gap, the stream yields the snapshot and goes on live", async (t) => {
  // A server that has lost the first turn's events: a replay from before
  // its end keeps only the newest one, so it starts with a gap (its first
  // event's previous_seq is not the cursor asked for).
  let lostUpTo = Infinity;
  const fetch = tapFetch({
    rewrite: (url) => {
      const u = new URL(url);
      if (Number(u.searchParams.get("since_seq")) < lostUpTo) u.searchParams.set("replay_limit", "1");
      return u.href;
    },
  });
  const { runtime, client } = await setup(t, fetch);
  const thread = await client.createThread({});
  await runtime.mock.push(text("first answer"), slowText(["second ", "answer"], 30));
  const plain = createRuntimeClient({ baseUrl: runtime.url, token: runtime.token });
  const first = await plain.startTurn(thread.id, "first");
  await collect(plain.events(thread.id), turnCompleted(first.turn.id));
  const before = await plain.getThread(thread.id);
  lostUpTo = before.latest_seq;

  const reconnects = [];
  const events = client.events(thread.id, { sinceSeq: 0, reconnect: fast, onReconnect: (r) => reconnects.push(r) });
  let second;
  const items = await collect(events, (item) => second && turnCompleted(second.turn.id)(item), {
    onItem: async (item) => {
      if (isResync(item)) second = await client.startTurn(thread.id, "second");
    },
  });

  const resync = items[0];
  assert.ok(isResync(resync), `first item is the snapshot, got ${resync.event}`);
  assert.equal(resync.previous_seq, 0);
  assert.equal(resync.seq, before.latest_seq);
  assert.equal(resync.snapshot.latest_seq, before.latest_seq);
  assert.equal(resync.snapshot.turns[0].status, "completed");
  assert.equal(resync.snapshot.items.find((i) => i.kind === "agent_message").detail, "first answer");
  assert.deepEqual(reconnects.map((r) => r.reason).slice(0, 1), ["gap"]);
  assert.deepEqual(fetch.streams.slice(0, 3).map((s) => s.sinceSeq), [0, 0, before.latest_seq]);
  // After the snapshot, live events follow on from it.
  assertContiguous(assert, items, 0);
  assert.equal(agentText(items.slice(1)), "second answer");
});
