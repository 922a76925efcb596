/**
 * A server-sent events parser following the WHATWG "event stream
 * interpretation": lines end in CRLF, LF or CR (a CR at the end of one
 * chunk and an LF at the start of the next are one line end), `data:`
 * lines accumulate with "\n" between them, lines starting with ":" are
 * comments (the server's heartbeats), a blank line dispatches, and a
 * field name without a colon has an empty value.
 */
export interface SseMessage {
  /** The `event:` field, "message" when absent. */
  event: string;
  data: string;
  /** The last `id:` seen on the stream so far (it persists across messages). */
  id: string;
}

export class SseParser {
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

  /** Feeds decoded text; returns the messages it completed. */
  push(text: string): SseMessage[] {
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
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
    this.#hasData = false;
    this.#event = "";
    return hasData ? message : undefined;
  }
}
