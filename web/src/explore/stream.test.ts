// @vitest-environment node
import { describe, expect, it } from "vitest";

import { exploreEvent } from "./events";
import { readSse, SseParser, type SseEvent } from "./stream";

function parseAll(chunks: string[]): SseEvent[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

const STREAM =
  'event: session\ndata: {"session_id":"guide-1","model":"m"}\n\n' +
  ": a comment\n" +
  'event: thought\ndata: {"step":1,"text":"a note"}\n\n';

describe("SseParser", () => {
  it("reads events whole", () => {
    expect(parseAll([STREAM])).toEqual([
      { event: "session", data: '{"session_id":"guide-1","model":"m"}' },
      { event: "thought", data: '{"step":1,"text":"a note"}' },
    ]);
  });

  it("gives the same events whatever the chunk boundaries", () => {
    const whole = parseAll([STREAM]);
    for (let cut = 1; cut < STREAM.length; cut++) {
      expect(parseAll([STREAM.slice(0, cut), STREAM.slice(cut)])).toEqual(whole);
    }
    expect(parseAll([...STREAM])).toEqual(whole);
  });

  it("joins multi-line data with newlines and takes CRLF and CR line ends", () => {
    const text = "event: answer\r\ndata: first\r\ndata:second\r\n\r\nevent: done\rdata: x\r\r";
    expect(parseAll([text])).toEqual([
      { event: "answer", data: "first\nsecond" },
      { event: "done", data: "x" },
    ]);
    // A CRLF split between chunks is one line end, not a blank line.
    expect(parseAll(["data: a\r", "\ndata: b\r", "\n\r", "\n"])).toEqual([{ event: "message", data: "a\nb" }]);
  });

  it("drops events without data and an unfinished last event", () => {
    expect(parseAll(["event: thought\n\n", ": only a comment\n\n", "data: cut"])).toEqual([]);
  });
});

describe("readSse", () => {
  it("decodes UTF-8 split inside a character", async () => {
    const bytes = new TextEncoder().encode('event: thought\ndata: {"text":"é€"}\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
        controller.close();
      },
    });
    const found: SseEvent[] = [];
    for await (const event of readSse(body)) found.push(event);
    expect(found).toEqual([{ event: "thought", data: '{"text":"é€"}' }]);
  });
});

describe("exploreEvent", () => {
  it("types known events member by member and ignores unknown names", () => {
    expect(
      exploreEvent({
        event: "tool_result",
        data: '{"step":2,"tool":"search","ok":true,"summary":"s","refs":["A/1",3]}',
      }),
    ).toEqual({ type: "tool_result", step: 2, tool: "search", ok: true, summary: "s", refs: ["A/1"] });
    expect(exploreEvent({ event: "ping", data: "{}" })).toBeNull();
    expect(exploreEvent({ event: "answer", data: "not json" })?.type).toBe("error");
  });
});
