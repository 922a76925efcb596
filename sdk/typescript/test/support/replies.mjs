// Scripted model replies for the mock provider (mock-provider/src/lib.rs:
// `Reply` and `Chunk`). Each ends with a usage chunk, as real providers do.

export const DEFAULT_USAGE = { prompt_tokens: 100, completion_tokens: 20 };

function stream(chunks, reason, delayMs = 0) {
  return {
    type: "stream",
    chunks: [...chunks, { kind: "finish", reason }, { kind: "usage", ...DEFAULT_USAGE }],
    delay_ms: delayMs,
  };
}

/** A streamed answer, one chunk per part. */
export function text(...parts) {
  return stream(parts.map((part) => ({ kind: "text", text: part })), "stop");
}

/** An answer whose parts arrive `delayMs` apart. */
export function slowText(parts, delayMs) {
  return { ...text(...parts), delay_ms: delayMs };
}

let calls = 0;

/** The model calls one tool; script the follow-up reply too. */
export function toolCall(name, args, id) {
  calls += 1;
  return stream(
    [{ kind: "tool_call", index: 0, id: id ?? `call_sdk_${calls}`, name, arguments: JSON.stringify(args) }],
    "tool_calls",
  );
}
