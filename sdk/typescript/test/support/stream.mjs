// Reading a client.events() iteration in tests.

/**
 * Collects items until `stop(item)` is true (that item included) and
 * returns them; `onItem` runs for each item first (it may act: answer an
 * approval, cut the connection). Fails after `timeoutMs`.
 */
export async function collect(iterable, stop, { onItem, timeoutMs = 20_000 } = {}) {
  const items = [];
  const iterator = iterable[Symbol.asyncIterator]();
  let timer;
  let timedOut = false;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => (timedOut = true) && reject(new Error(`no matching event within ${timeoutMs} ms; got: ${items.map((i) => `${i.seq}:${i.event}`).join(" ")}`)),
      timeoutMs,
    );
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), timeout]);
      if (next.done) return items;
      items.push(next.value);
      if (onItem) await onItem(next.value, items);
      if (stop(next.value)) return items;
    }
  } finally {
    clearTimeout(timer);
    // A generator busy in next() would only return after it: don't wait then.
    if (timedOut) void iterator.return?.().catch(() => {});
    else await iterator.return?.();
  }
}

/** Until the turn's turn.completed. */
export const turnCompleted = (turnId) => (item) => item.event === "turn.completed" && (!turnId || item.turn_id === turnId);

/** The agent's text: its message deltas, in order. */
export function agentText(items) {
  return items
    .filter((i) => i.event === "item.delta" && i.payload?.kind === "agent_message")
    .map((i) => i.payload.delta)
    .join("");
}

/** Every item follows on from the one before: seqs rise and previous_seq links them. */
export function assertContiguous(assert, items, sinceSeq) {
  let last = sinceSeq;
  for (const item of items) {
    assert.ok(item.seq > last, `seq ${item.seq} after ${last}`);
    assert.equal(item.previous_seq, last, `event ${item.seq} (${item.event}) follows ${last}`);
    last = item.seq;
  }
}
