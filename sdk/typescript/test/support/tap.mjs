// A fetch that records every request and can break or filter the event
// streams going through it: what a flaky network or proxy does to a client.

/**
 * `tapFetch({ rewrite, dropFrame })`:
 * - `rewrite(url, index)` may change the URL of the index-th events
 *   request before it is fetched;
 * - `dropFrame(frame, stream)` returns true to drop one SSE frame (the raw
 *   text between blank lines) of an events response.
 * - `onStream(entry)` hears of each events response as it arrives.
 * The result is a fetch with `requests` (every call), `streams` (every
 * events response: its `sinceSeq`) and `cutAll()` (breaks every open
 * events response, as a dropped TCP connection would).
 */
export function tapFetch({ rewrite, dropFrame, onStream } = {}) {
  const requests = [];
  const streams = [];
  const open = new Set();
  const tapped = async (input, init = {}) => {
    const url = typeof input === "string" ? input : input.url;
    const method = (init.method ?? "GET").toUpperCase();
    requests.push({ method, url });
    if (!new URL(url).pathname.endsWith("/events")) return fetch(input, init);
    const target = rewrite ? rewrite(url, streams.length) : url;
    const cut = new AbortController();
    const signal = init.signal ? AbortSignal.any([init.signal, cut.signal]) : cut.signal;
    const response = await fetch(target, { ...init, signal });
    const entry = {
      url: target,
      sinceSeq: Number(new URL(target).searchParams.get("since_seq")),
      status: response.status,
      cut: () => cut.abort(new Error("connection cut by the test")),
    };
    streams.push(entry);
    onStream?.(entry);
    if (!response.ok || !response.body) return response;
    open.add(entry);
    let body = response.body;
    if (dropFrame) body = body.pipeThrough(frameFilter((frame) => !dropFrame(frame, entry)));
    const done = () => open.delete(entry);
    body = body.pipeThrough(
      new TransformStream({
        transform: (chunk, controller) => controller.enqueue(chunk),
        flush: done,
      }),
    );
    cut.signal.addEventListener("abort", done, { once: true });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  tapped.requests = requests;
  tapped.streams = streams;
  tapped.cutAll = () => {
    for (const entry of [...open]) entry.cut();
  };
  return tapped;
}

/** Passes SSE frames (split on "\n\n": the server writes LF) that `keep` accepts. */
function frameFilter(keep) {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = "";
  return new TransformStream({
    transform(chunk, controller) {
      buffer += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const frame = buffer.slice(0, end + 2);
        buffer = buffer.slice(end + 2);
        if (keep(frame)) controller.enqueue(encoder.encode(frame));
      }
    },
    flush(controller) {
      if (buffer) controller.enqueue(encoder.encode(buffer));
    },
  });
}

/** The parsed envelope of a raw SSE frame, or undefined for a heartbeat. */
export function frameEvent(frame) {
  const data = frame
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).replace(/^ /, ""))
    .join("\n");
  return data ? JSON.parse(data) : undefined;
}
