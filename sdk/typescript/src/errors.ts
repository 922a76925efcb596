/**
 * What kind of failure a {@link RuntimeApiError} is, as the runtime names
 * it (`protocol::ErrorKind`): one per HTTP status, plus `unreachable` for a
 * request that got no HTTP answer at all and `invalid_request` for one this
 * client could not even build (an invalid header value; status 0, not
 * retryable).
 */
export type ErrorKind =
  | "invalid"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "too_large"
  | "internal"
  | "unreachable"
  | "invalid_request"
  | "other";

/** The kind the runtime gives an HTTP status (`ErrorKind::from_status`). */
export function errorKindForStatus(status: number): ErrorKind {
  switch (status) {
    case 0:
      return "unreachable";
    case 400:
      return "invalid";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 409:
      return "conflict";
    case 413:
      return "too_large";
    case 500:
      return "internal";
    default:
      return "other";
  }
}

/**
 * A `/v1` call that did not succeed: any non-2xx answer (`status` is the
 * HTTP status, `message` the server's own sentence from its JSON error
 * body `{"error": {"message", "status"}}`), or no answer at all
 * (`status` 0, `kind` "unreachable", the network error as `cause`).
 */
export class RuntimeApiError extends Error {
  override readonly name: string = "RuntimeApiError";
  /** The HTTP status; 0 when the server could not be reached. */
  readonly status: number;
  /** What code should match on. */
  readonly kind: ErrorKind;
  /** The request, e.g. `POST /v1/threads/thr_1/turns`. */
  readonly method: string;
  readonly path: string;
  /** The parsed JSON error body, or the raw text when it was not JSON. */
  readonly body: unknown;

  constructor(init: {
    status: number;
    message: string;
    method: string;
    path: string;
    body?: unknown;
    kind?: ErrorKind;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.kind = init.kind ?? errorKindForStatus(init.status);
    this.method = init.method;
    this.path = init.path;
    this.body = init.body;
  }

  /** Whether retrying the same request later can help. */
  get retryable(): boolean {
    if (this.status === 0) return this.kind === "unreachable";
    return this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

/**
 * The stable names of the capability flags in `GET /v1/runtime/info`
 * (`capabilities.*`) that the client checks before a call.
 */
export type CapabilityName =
  | "threads"
  | "turns"
  | "turn_steer"
  | "turn_interrupt"
  | "event_replay"
  | "approvals"
  | "user_input"
  | "external_tools"
  | "usage"
  | "mobile"
  | "tasks"
  | "automations"
  | "fleet"
  | "agent_runs"
  | "skills"
  | "mcp_servers"
  | "sessions";

/**
 * The server does not advertise what the call needs: `capability` is the
 * flag of `/v1/runtime/info` that is false or missing (e.g. "turn_steer",
 * or "mobile" for the device routes). Thrown before any request is sent.
 */
export class CapabilityError extends Error {
  override readonly name = "CapabilityError";
  readonly capability: CapabilityName;
  /** The client method that needed it, e.g. "steerTurn". */
  readonly operation: string;

  constructor(capability: CapabilityName, operation: string) {
    super(`the runtime does not advertise capability "${capability}" (needed by ${operation})`);
    this.capability = capability;
    this.operation = operation;
  }
}

/** The name the runtime's reference SDK contract uses for the same error. */
export { CapabilityError as RuntimeCapabilityError };

/** Reads an error response into a {@link RuntimeApiError}. */
export async function errorFromResponse(
  response: Response,
  method: string,
  path: string,
): Promise<RuntimeApiError> {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // The body could not be read: the status still says what happened.
  }
  let body: unknown = text;
  let message = `${method} ${path}: HTTP ${response.status}`;
  try {
    body = JSON.parse(text);
    // The kind comes from the status alone (the server's body has none,
    // and a body's claim must not override what the status says).
    const error = (body as { error?: { message?: unknown } } | null)?.error;
    if (error && typeof error.message === "string" && error.message !== "") message = error.message;
  } catch {
    if (text.trim() !== "" && text.length <= 1024) message = `${message}: ${text.trim()}`;
  }
  return new RuntimeApiError({
    status: response.status,
    message,
    method,
    path,
    body,
  });
}

/**
 * The server refused the stream's cursor with 409: `sinceSeq` is ahead of
 * every event it has, so the cursor comes from another runtime (a reset
 * `$CODEWHALE_HOME`, another server). Resuming cannot fix it and a resync
 * would go backwards (the stream's seqs only grow): reload the thread
 * (`getThread`) and stream again from its `latest_seq`.
 */
export class StreamCursorError extends RuntimeApiError {
  override readonly name: string = "StreamCursorError";
  /** The refused cursor. */
  readonly sinceSeq: number;
  constructor(error: RuntimeApiError, sinceSeq: number) {
    super({ status: error.status, message: error.message, method: error.method, path: error.path, body: error.body });
    this.sinceSeq = sinceSeq;
  }
}
