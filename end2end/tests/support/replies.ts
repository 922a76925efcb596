// Scripted model replies for the mock provider (mock-provider/src/lib.rs:
// `Reply` and `Chunk`, serde's snake_case tags). Each builder ends with a
// usage chunk, as real providers do, so turns record tokens and cost.

export type Chunk =
  | { kind: "text"; text: string }
  | { kind: "reasoning"; text: string }
  | { kind: "tool_call"; index: number; id?: string; name?: string; arguments: string }
  | { kind: "finish"; reason: string }
  | {
      kind: "usage";
      prompt_tokens: number;
      completion_tokens: number;
      cached_tokens?: number;
      reasoning_tokens?: number;
    };

/** `when_contains`: only for a request whose body contains it (see `keyed`). */
export type Reply =
  | { type: "stream"; chunks: Chunk[]; delay_ms?: number; when_contains?: string }
  | { type: "error"; status: number; message: string; when_contains?: string };

export type TokenUsage = Omit<Extract<Chunk, { kind: "usage" }>, "kind">;

/** What every builder reports unless `withUsage` says otherwise. */
export const DEFAULT_USAGE: TokenUsage = { prompt_tokens: 100, completion_tokens: 20 };

function stream(chunks: Chunk[], reason: string, delayMs = 0): Reply {
  return {
    type: "stream",
    chunks: [...chunks, { kind: "finish", reason }, { kind: "usage", ...DEFAULT_USAGE }],
    delay_ms: delayMs,
  };
}

/** A streamed answer, one chunk per part. */
export function text(...parts: string[]): Reply {
  return stream(
    parts.map((part) => ({ kind: "text", text: part })),
    "stop",
  );
}

/** Reasoning first (shown as thinking), then the answer. */
export function reasoningThenText(reasoning: string, answer: string): Reply {
  return stream(
    [
      { kind: "reasoning", text: reasoning },
      { kind: "text", text: answer },
    ],
    "stop",
  );
}

let calls = 0;

/**
 * The model asks for one tool. The engine runs it (or asks for approval)
 * and calls the model again, so script the follow-up reply too.
 */
export function toolCall(name: string, args: Record<string, unknown>, id?: string): Reply {
  calls += 1;
  return stream(
    [{ kind: "tool_call", index: 0, id: id ?? `call_e2e_${calls}`, name, arguments: JSON.stringify(args) }],
    "tool_calls",
  );
}

/** An answer whose parts arrive `delayMs` apart: time to steer, interrupt or watch it stream. */
export function slowText(parts: string[], delayMs: number): Reply {
  return { ...text(...parts), delay_ms: delayMs };
}

/** The reply goes only to a request mentioning `key` (agents side by side
 * each get their own, whatever order they ask in). */
export function keyed(key: string, reply: Reply): Reply {
  return { ...reply, when_contains: key };
}

/** An HTTP error from the provider (the turn fails with its message). */
export function providerError(status: number, message: string): Reply {
  return { type: "error", status, message };
}

/** The same reply reporting other token counts. */
export function withUsage(reply: Reply, usage: TokenUsage): Reply {
  if (reply.type !== "stream") return reply;
  const chunks: Chunk[] = reply.chunks.map((chunk) =>
    chunk.kind === "usage" ? { kind: "usage", ...usage } : chunk,
  );
  return { ...reply, chunks };
}

/** One reply asking for `count` directory listings at once: each becomes a
 * transcript item, so a few of these make a long thread quickly. */
export function manyListDirCalls(count: number): Reply {
  const chunks: Chunk[] = Array.from({ length: count }, (_, index) => ({
    kind: "tool_call" as const, index, id: `call_many_${(calls += 1)}`, name: "list_dir", arguments: "{}",
  }));
  return stream(chunks, "tool_calls");
}
