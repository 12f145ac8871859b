// The mock API of Explore (docs/web.md): with `mock: true` in the runtime configuration the panel
// plays a scripted exploration instead of calling Guide, made of the same events, so the panel's
// code path is one. The script holds no question or answer of any dataset: it reads the Domain's
// schema, makes one real lexical search of Keeper with the question, and cites only what that
// search returned, or answers Not found in the graph.
import { data, type Keeper } from "../api/client";
import type { DomainSchema } from "../components/schema";
import { DEFAULT_SEARCH, searchBody } from "../lab/bodies";
import type { ExploreEvent } from "./events";

export const NOT_FOUND = "Not found in the graph.";
const STEP_DELAY_MS = 350;
const SEARCH_LIMIT = 5;
const CITED_HITS = 3;

export interface MockRequest {
  api: Keeper;
  schema: DomainSchema;
  domain: string;
  branch: string | null;
  question: string;
  maxSteps: number;
  signal: AbortSignal;
  /** The pause between events, so the stream shows as it arrives (0 in tests). */
  delayMs?: number;
}

/** Why `signal` was aborted, as an Error (its reason, unless a caller aborted with something else). */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException(String(reason), "AbortError");
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(abortError(signal));
      },
      { once: true },
    );
  });
}

export async function* mockExplore(request: MockRequest): AsyncGenerator<ExploreEvent> {
  const { api, schema, domain, branch, question, signal } = request;
  const delay = request.delayMs ?? STEP_DELAY_MS;
  const started = Date.now();
  const sessionId = `mock-${Math.random().toString(16).slice(2, 14)}`;
  const wait = () => pause(delay, signal);

  yield {
    type: "session",
    session_id: sessionId,
    domain,
    branch,
    model: "scripted (mock API)",
    max_steps: request.maxSteps,
  };
  await wait();
  yield { type: "thought", step: 1, text: "Read the schema to see which Kinds this Domain holds." };
  yield { type: "tool_call", step: 1, tool: "schema", args: {} };
  let steps = 1;
  await wait();
  const kinds = schema.kinds.map((kind) => kind.name);
  yield {
    type: "tool_result",
    step: 1,
    tool: "schema",
    ok: true,
    summary: `${kinds.length} Kinds: ${kinds.join(", ")}; ${schema.relations.length} Relations`,
    refs: [],
  };

  let hits: { ref: string; title: string }[] = [];
  if (request.maxSteps >= 2) {
    await wait();
    yield { type: "thought", step: 2, text: "Search the Records for the words of the question." };
    const args = { q: question, mode: "lexical", limit: SEARCH_LIMIT };
    yield { type: "tool_call", step: 2, tool: "search", args };
    steps = 2;
    try {
      const found = await data(
        api.POST("/api/v1/domains/{domain}/search", {
          params: { path: { domain } },
          body: searchBody(question, { ...DEFAULT_SEARCH, limit: SEARCH_LIMIT }, branch),
          signal,
        }),
      );
      hits = found.hits.map((hit) => ({ ref: hit.ref, title: hit.title }));
      yield {
        type: "tool_result",
        step: 2,
        tool: "search",
        ok: true,
        summary: `${hits.length} hit(s)${found.notes?.length ? `; ${found.notes.join("; ")}` : ""}`,
        refs: hits.map((hit) => hit.ref),
      };
    } catch (error) {
      if (signal.aborted) throw error;
      yield { type: "tool_result", step: 2, tool: "search", ok: false, summary: String(error), refs: [] };
    }
  }

  await wait();
  const cited = hits.slice(0, CITED_HITS);
  const found = cited.length > 0;
  yield {
    type: "answer",
    text: found
      ? `A scripted exploration (mock API) does not reason: these are the best search hits for the question.\n${cited
          .map((hit) => `- ${hit.title} (${hit.ref})`)
          .join("\n")}`
      : NOT_FOUND,
    citations: cited.map((hit) => {
      const slash = hit.ref.indexOf("/");
      return { ref: hit.ref, kind: hit.ref.slice(0, slash), key: hit.ref.slice(slash + 1) };
    }),
    found,
  };
  yield {
    type: "done",
    session_id: sessionId,
    steps,
    outcome: found ? "answered" : "not_found",
    tokens: { input: 0, output: 0 },
    elapsed_ms: Date.now() - started,
  };
}
