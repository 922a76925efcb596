import { test } from "node:test";
import assert from "node:assert/strict";
import { SseParser } from "../dist/index.js";

/** Feeds `text` split at every position in turn; each split must parse the same. */
function parseAllSplits(text) {
  const whole = new SseParser().push(text);
  for (let cut = 1; cut < text.length; cut++) {
    const parser = new SseParser();
    const parts = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
    assert.deepEqual(parts, whole, `split at ${cut}: ${JSON.stringify(text.slice(0, cut))}`);
  }
  return whole;
}

test("LF, CRLF and CR line ends, split anywhere, parse the same", () => {
  for (const eol of ["\n", "\r\n", "\r"]) {
    const text = ["id: 7", "event: item.delta", 'data: {"seq":7}', "", ""].join(eol);
    const messages = parseAllSplits(text);
    assert.deepEqual(messages, [{ event: "item.delta", data: '{"seq":7}', id: "7" }], JSON.stringify(eol));
  }
});

test("multi-line data joins with newlines; comments and empty frames dispatch nothing", () => {
  const text = ": heartbeat\n\n:\n\ndata: one\ndata:two\ndata\n\nevent: x\n\n";
  const messages = parseAllSplits(text);
  assert.deepEqual(messages, [{ event: "message", data: "one\ntwo\n", id: "" }]);
  const parser = new SseParser();
  parser.push(text);
  assert.equal(parser.comments, 2);
});

test("the id persists across messages, a leading BOM is dropped, retry is read, unknown fields are ignored", () => {
  const parser = new SseParser();
  const messages = parser.push("\uFEFFid: 3\ndata: a\n\nretry: 1500\nfoo: bar\ndata: b\n\nid: 4\u0000x\ndata: c\n\n");
  assert.deepEqual(
    messages.map((m) => [m.id, m.data]),
    [
      ["3", "a"],
      ["3", "b"],
      ["3", "c"], // an id with NUL is ignored
    ],
  );
  assert.equal(parser.retry, 1500);
});

test("a CR at the end of one chunk and LF at the start of the next are one line end", () => {
  const parser = new SseParser();
  assert.deepEqual(parser.push("data: a\r"), []);
  assert.deepEqual(parser.push("\n\r"), [{ event: "message", data: "a", id: "" }]);
  assert.deepEqual(parser.push("\ndata: b\r\n\r\n"), [{ event: "message", data: "b", id: "" }]);
});

test("a line or an event over maxEventSize throws StreamProtocolError instead of growing without bound", async () => {
  const { StreamProtocolError } = await import("../dist/index.js");
  const line = new SseParser({ maxEventSize: 100 });
  line.push("data: " + "x".repeat(60));
  assert.throws(() => line.push("x".repeat(60)), StreamProtocolError);
  const event = new SseParser({ maxEventSize: 100 });
  event.push("data: " + "y".repeat(40) + "\n");
  event.push("data: " + "y".repeat(40) + "\n");
  assert.throws(() => event.push("data: " + "y".repeat(40) + "\n"), StreamProtocolError);
  // Within the cap, lines and events spread over many chunks still parse.
  const ok = new SseParser({ maxEventSize: 100 });
  assert.deepEqual(ok.push("data: " + "z".repeat(50)), []);
  assert.equal(ok.push("\n\n")[0].data, "z".repeat(50));
});

test("an empty chunk between a CR and its LF keeps them one line end", () => {
  const parser = new SseParser();
  const out = [...parser.push("data: a\r"), ...parser.push(""), ...parser.push("\ndata: b\n\n")];
  assert.deepEqual(out.map((m) => m.data), ["a\nb"]);
});

test("only one leading BOM is dropped; a second one is part of the first field name", () => {
  const parser = new SseParser();
  assert.deepEqual(parser.push("\uFEFF\uFEFFdata: x\n\ndata: y\n\n").map((m) => m.data), ["y"]);
});

test("a final event without the blank line that ends it is not dispatched", () => {
  const parser = new SseParser();
  assert.deepEqual(parser.push("data: done\n\ndata: cut"), [{ event: "message", data: "done", id: "" }]);
  assert.deepEqual(parser.push("\n"), []);
});
