/**
 * A server-sent events parser following the WHATWG "event stream
 * interpretation": lines end in CRLF, LF or CR (a CR at the end of one
 * chunk and an LF at the start of the next are one line end), `data:`
 * lines accumulate with "\n" between them, lines starting with ":" are
 * comments (the server's heartbeats), a blank line dispatches, and a
 * field name without a colon has an empty value. One leading BOM is
 * dropped (feed it text decoded with `ignoreBOM: true`, so that it is
 * dropped once, here), and an event not ended by a blank line is never
 * dispatched.
 */
export interface SseMessage {
  /** The `event:` field, "message" when absent. */
  event: string;
  data: string;
  /** The last `id:` seen on the stream so far (it persists across messages). */
  id: string;
}

/** The default cap of one line and of one event's data: 32 MiB (in UTF-16 code units). */
export const DEFAULT_MAX_EVENT_SIZE = 32 * 1024 * 1024;

/**
 * The stream broke the protocol in a way reconnecting cannot fix: a line
 * or an event larger than the cap (`SseParser`'s `maxEventSize`). Fatal:
 * the event stream throws it instead of reconnecting.
 */
export class StreamProtocolError extends Error {
  override readonly name = "StreamProtocolError";
  /** The cap that was exceeded. */
  readonly limit: number;
  constructor(message: string, limit: number) {
    super(message);
    this.limit = limit;
  }
}

export interface SseParserOptions {
  /**
   * The longest line and the largest event data accepted (UTF-16 code
   * units); more throws {@link StreamProtocolError}. Default 32 MiB.
   */
  maxEventSize?: number;
}

export class SseParser {
  readonly #max: number;
  #dataSize = 0;
  #buffer = "";
  #trailingCR = false;
  #started = false;
  #data: string[] = [];
  #hasData = false;
  #event = "";
  #lastId = "";
  /** Where the search for the next line end resumes in the buffer. */
  #scanFrom = 0;
  /** The reconnection delay the server asked for (`retry:`), in ms. */
  retry: number | undefined;
  /** Comments (heartbeats) seen: a sign of life without an event. */
  comments = 0;

  constructor(options: SseParserOptions = {}) {
    this.#max = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  }

  /** Feeds decoded text; returns the messages it completed. */
  push(text: string): SseMessage[] {
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    // An empty chunk between a CR and its LF changes nothing: the CR still waits for it.
    if (text.length === 0) return [];
    if (this.#trailingCR && text.startsWith("\n")) text = text.slice(1);
    this.#trailingCR = false;
    this.#buffer += text;
    const out: SseMessage[] = [];
    let start = 0;
    for (;;) {
      let end = -1;
      for (let i = Math.max(start, this.#scanFrom); i < this.#buffer.length; i++) {
        const c = this.#buffer.charCodeAt(i);
        if (c === 10 || c === 13) {
          end = i;
          break;
        }
      }
      if (end === -1) break;
      const line = this.#buffer.slice(start, end);
      if (this.#buffer.charCodeAt(end) === 13) {
        if (end + 1 === this.#buffer.length) {
          this.#trailingCR = true;
          start = end + 1;
        } else {
          start = this.#buffer.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
        }
      } else {
        start = end + 1;
      }
      const message = this.#line(line);
      if (message) out.push(message);
    }
    this.#buffer = this.#buffer.slice(start);
    this.#scanFrom = this.#buffer.length;
    if (this.#buffer.length > this.#max) {
      this.#buffer = "";
      throw new StreamProtocolError(`event stream: a line longer than ${this.#max} characters`, this.#max);
    }
    return out;
  }

  #line(line: string): SseMessage | undefined {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) {
      this.comments++;
      return undefined;
    }
    const colon = line.indexOf(":");
    let field = line;
    let value = "";
    if (colon !== -1) {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
    }
    switch (field) {
      case "data":
        this.#dataSize += value.length + 1;
        if (this.#dataSize > this.#max) {
          this.#data = [];
          this.#dataSize = 0;
          throw new StreamProtocolError(`event stream: an event larger than ${this.#max} characters`, this.#max);
        }
        this.#data.push(value);
        this.#hasData = true;
        break;
      case "event":
        this.#event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.#lastId = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
    return undefined;
  }

  #dispatch(): SseMessage | undefined {
    const hasData = this.#hasData;
    const message: SseMessage = {
      event: this.#event === "" ? "message" : this.#event,
      data: this.#data.join("\n"),
      id: this.#lastId,
    };
    this.#data = [];
    this.#dataSize = 0;
    this.#hasData = false;
    this.#event = "";
    return hasData ? message : undefined;
  }
}
