// Server-sent events read from a fetch body (EventSource cannot POST, guide.md "Streaming").
// The parser follows the text/event-stream rules: lines end with LF, CR or CRLF (a CRLF may be
// split between two chunks), ":" starts a comment, "data" lines of one event join with "\n",
// a blank line dispatches, and an event without data is dropped.

export interface SseEvent {
  event: string;
  data: string;
}

export class SseParser {
  private buffer = "";
  private name = "";
  private data: string[] = [];
  /** A chunk ended with CR: a LF starting the next one belongs to the same line ending. */
  private pendingCr = false;

  push(chunk: string): SseEvent[] {
    let text = chunk;
    if (this.pendingCr && text.startsWith("\n")) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const found: SseEvent[] = [];
    const ending = /\r\n|\r|\n/g;
    let start = 0;
    for (let match = ending.exec(this.buffer); match; match = ending.exec(this.buffer)) {
      // A CR at the very end may be the first half of a CRLF still to come.
      if (match[0] === "\r" && match.index === this.buffer.length - 1) this.pendingCr = true;
      const event = this.line(this.buffer.slice(start, match.index));
      if (event) found.push(event);
      start = match.index + match[0].length;
    }
    this.buffer = this.buffer.slice(start);
    return found;
  }

  /** The stream ended: an event not closed by a blank line is incomplete and dropped. */
  end(): void {
    this.buffer = "";
    this.name = "";
    this.data = [];
  }

  private line(line: string): SseEvent | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.name = value;
    else if (field === "data") this.data.push(value);
    return null;
  }

  private dispatch(): SseEvent | null {
    const event = this.data.length ? { event: this.name || "message", data: this.data.join("\n") } : null;
    this.name = "";
    this.data = [];
    return event;
  }
}

/** The events of a streamed body, each as soon as its blank line arrives. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    finished = true;
    yield* parser.push(decoder.decode());
    parser.end();
  } finally {
    // A reader that stops early closes the response, so Guide stops working on it.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
