// @vitest-environment node
import { afterEach, describe, expect, it, vi } from "vitest";

import { ApiProblem } from "../api/client";
import { explore } from "./guide";

afterEach(() => vi.unstubAllGlobals());

const REQUEST = { guideUrl: "/guide", domain: "supply", branch: null, question: "Who?", maxSteps: 6 };

describe("explore", () => {
  it("posts the body Guide takes with the Bearer key, and nothing of Keeper's", async () => {
    const fetcher = vi.fn((_url: string, _init: RequestInit) =>
      Promise.resolve(
        new Response('event: answer\ndata: {"text":"t","citations":[],"found":false}\n\n', {
          headers: { "Content-Type": "text/event-stream" },
        }),
      ),
    );
    vi.stubGlobal("fetch", fetcher);
    const events = [];
    for await (const event of explore({
      ...REQUEST,
      credential: { mode: "token", token: "lbk_x" },
      signal: new AbortController().signal,
    })) {
      events.push(event);
    }
    expect(events).toEqual([{ type: "answer", text: "t", citations: [], found: false }]);
    const [url, init] = fetcher.mock.calls[0]!;
    expect(url).toBe("/guide/explore");
    expect(JSON.parse(init.body as string)).toEqual({ domain: "supply", branch: null, question: "Who?", max_steps: 6 });
    expect(init.headers).toEqual({
      "Content-Type": "application/json",
      Authorization: "Bearer lbk_x",
      Accept: "text/event-stream",
    });
    expect(init.credentials).toBe("same-origin");
  });

  it("sends the cookie and the CSRF token in session mode", async () => {
    const fetcher = vi.fn((_url: string, _init: RequestInit) => Promise.resolve(new Response("")));
    vi.stubGlobal("fetch", fetcher);
    for await (const _ of explore({
      ...REQUEST,
      credential: { mode: "session", csrf: "c1" },
      signal: new AbortController().signal,
    }))
      void _;
    const init = fetcher.mock.calls[0]![1];
    expect(init.credentials).toBe("include");
    expect(init.headers).toMatchObject({ "X-CSRF-Token": "c1" });
    expect(init.headers).not.toHaveProperty("Authorization");
  });

  it("turns a refusal into an ApiProblem with its Retry-After", async () => {
    vi.stubGlobal("fetch", () =>
      Promise.resolve(
        Response.json(
          { title: "Too many requests", code: "concurrent", detail: "one at a time" },
          { status: 429, headers: { "Retry-After": "5" } },
        ),
      ),
    );
    const stream = explore({ ...REQUEST, credential: { mode: "none" }, signal: new AbortController().signal });
    const problem = await stream.next().catch((error: unknown) => error);
    expect(problem).toBeInstanceOf(ApiProblem);
    expect(problem).toMatchObject({ status: 429, code: "concurrent", retryAfter: 5 });
  });
});
