// @vitest-environment node
// Rendered to markup on the server renderer (jsdom cannot start on Node 20, see Timeline.test):
// the events are those a stream gives (a fake one with XSS payloads, and the mock API), collected
// as the panel collects them, then shown by the panel's view.
import { renderToStaticMarkup } from "react-dom/server";
import { MemoryRouter } from "react-router-dom";
import { describe, expect, it, vi } from "vitest";

import { ApiProblem, keeper } from "../api/client";
import type { DomainSchema } from "../components/schema";
import { exploreEvent, type ExploreEvent } from "./events";
import { ExplorationView } from "./ExplorePanel";
import { mockExplore, NOT_FOUND } from "./mock";
import { readSse } from "./stream";
import type { Exploration } from "./useExploration";

const IMG = "<img src=x onerror=alert(1)>";
const MARKDOWN_IMG = "![x](http://evil/x.png)";
const MARKDOWN_LINK = "[a](javascript:alert(1))";

function frame(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

const WIRE =
  frame("session", { session_id: "guide-0a1b", domain: "supply", branch: null, model: "test-model", max_steps: 6 }) +
  frame("thought", { step: 1, text: IMG }) +
  frame("tool_call", { step: 1, tool: "search", args: { q: MARKDOWN_LINK } }) +
  frame("tool_result", {
    step: 1,
    tool: "search",
    ok: true,
    summary: MARKDOWN_IMG,
    refs: ["Supplier/S-1", "Part/P-1"],
  }) +
  frame("answer", {
    text: `${IMG} ${MARKDOWN_IMG} ${MARKDOWN_LINK}`,
    citations: [
      { ref: "Supplier/S-1", kind: "Supplier", key: "S-1" },
      { ref: "Evil/<b>x</b>", kind: "Evil", key: "<b>x</b>" },
      { ref: "Part/P\u0001-1", kind: "Part", key: "P\u0001-1" },
    ],
    found: true,
  }) +
  frame("done", {
    session_id: "guide-0a1b",
    steps: 1,
    outcome: "answered",
    tokens: { input: 900, output: 100 },
    elapsed_ms: 4200,
  });

/** A body delivered in chunks of 7 bytes, cut anywhere. */
function body(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 7) controller.enqueue(bytes.slice(at, at + 7));
      controller.close();
    },
  });
}

async function collect(events: AsyncIterable<ExploreEvent>): Promise<ExploreEvent[]> {
  const found: ExploreEvent[] = [];
  for await (const event of events) found.push(event);
  return found;
}

async function* fromWire(text: string): AsyncGenerator<ExploreEvent> {
  for await (const raw of readSse(body(text))) {
    const event = exploreEvent(raw);
    if (event) yield event;
  }
}

function state(events: ExploreEvent[], extra: Partial<Exploration> = {}): Exploration {
  return {
    events,
    running: false,
    ending: "done",
    problem: null,
    blockedUntil: null,
    ask: () => undefined,
    stop: () => undefined,
    ...extra,
  };
}

function show(run: Exploration, wait = 0, examples: string[] = []): string {
  return renderToStaticMarkup(
    <MemoryRouter>
      <ExplorationView
        timeoutMs={150_000}
        domain="supply"
        kinds={new Set(["Supplier", "Part"])}
        examples={examples}
        point={{ branch: null, at: null }}
        question="Who supplies P-1?"
        onQuestion={() => undefined}
        run={run}
        wait={wait}
      />
    </MemoryRouter>,
  );
}

const hrefs = (html: string) => [...html.matchAll(/<a [^>]*href="([^"]*)"/g)].map((m) => m[1]);

describe("the Explore panel", () => {
  it("shows notes, arguments, summaries and answers as text; only valid citations link", async () => {
    const html = show(state(await collect(fromWire(WIRE))));
    expect(html).not.toMatch(/<img|<b>/);
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain(MARKDOWN_IMG);
    expect(html).toContain("[a](javascript:alert(1))");
    expect(html).toContain("Evil/&lt;b&gt;x&lt;/b&gt;");
    expect(html).toContain("test-model");
    expect(html).toContain("(2 Records)");
    expect(html).toContain("1 step, 4.2 s, 1000 tokens (900 in, 100 out)");
    expect(hrefs(html)).toEqual([
      "/supply/agent-activity?session=guide-0a1b",
      "/supply/kinds/Supplier/S-1",
      "/supply/canvas?ref=Supplier%2FS-1&amp;highlight=Supplier%2FS-1",
    ]);
  });

  it("disables asking while a 429's Retry-After runs, and says why", () => {
    const problem = new ApiProblem(429, { title: "Too many requests", code: "rate", detail: "6 requests" }, 30);
    const html = show(state([], { ending: "refused", problem, blockedUntil: Date.now() + 30_000 }), 30, [
      "An example?",
    ]);
    expect(html).toContain("Asking is possible again in 30 s.");
    expect(html).toContain("too often");
    expect(html).toMatch(/<button type="submit" class="primary" disabled="">Ask<\/button>/);
    expect(html).toMatch(/<button type="button" disabled="">An example\?<\/button>/);
    expect(show(state([]), 0, ["An example?"])).toMatch(/<button type="submit" class="primary">Ask<\/button>/);
  });

  it("plays the mock API: cites only what its real search returned", async () => {
    const fetcher = vi.fn(() =>
      Promise.resolve(
        Response.json({
          domain: "supply",
          branch: "main",
          revision: "r1",
          q: "q",
          mode: "lexical",
          kinds: ["Supplier"],
          hits: [{ ref: "Supplier/S-1", kind: "Supplier", key: "S-1", title: IMG, score: 1, matched: ["name"] }],
        }),
      ),
    );
    vi.stubGlobal("fetch", fetcher);
    const schema = { kinds: [{ name: "Supplier" }], relations: [] } as unknown as DomainSchema;
    const request = { schema, domain: "supply", branch: null, question: "q", maxSteps: 6, delayMs: 0 };
    const events = await collect(
      mockExplore({ ...request, api: keeper("http://keeper", { mode: "none" }), signal: new AbortController().signal }),
    );
    vi.unstubAllGlobals();
    expect(events.map((event) => event.type)).toEqual([
      "session",
      "thought",
      "tool_call",
      "tool_result",
      "thought",
      "tool_call",
      "tool_result",
      "answer",
      "done",
    ]);
    const answer = events.find((event) => event.type === "answer");
    expect(answer?.type === "answer" && answer.citations.map((c) => c.ref)).toEqual(["Supplier/S-1"]);
    const html = show(state(events));
    expect(html).not.toContain("<img");

    vi.stubGlobal(
      "fetch",
      vi.fn(() =>
        Promise.resolve(
          Response.json({
            domain: "supply",
            branch: "main",
            revision: "r1",
            q: "q",
            mode: "lexical",
            kinds: [],
            hits: [],
          }),
        ),
      ),
    );
    const none = await collect(
      mockExplore({ ...request, api: keeper("http://keeper", { mode: "none" }), signal: new AbortController().signal }),
    );
    vi.unstubAllGlobals();
    expect(none.find((event) => event.type === "answer")).toMatchObject({
      text: NOT_FOUND,
      citations: [],
      found: false,
    });
  });
});
