// The events of an exploration (guide.md, "POST /explore"), checked member by member: the data is
// model output and graph data, so nothing of it is trusted to have the shape the types promise.
import type { SseEvent } from "./stream";

export interface Citation {
  ref: string;
  kind: string;
  key: string;
}

export type ExploreEvent =
  | {
      type: "session";
      session_id: string;
      domain: string;
      branch: string | null;
      model: string | null;
      max_steps: number | null;
    }
  | { type: "thought"; step: number; text: string }
  | { type: "tool_call"; step: number; tool: string; args: Record<string, unknown> }
  | { type: "tool_result"; step: number; tool: string; ok: boolean; summary: string; refs: string[] }
  | { type: "error"; code: string; message: string }
  | { type: "answer"; text: string; citations: Citation[]; found: boolean }
  | {
      type: "done";
      session_id: string;
      steps: number;
      outcome: string;
      tokens: { input: number; output: number };
      elapsed_ms: number;
    };

export type EventType = ExploreEvent["type"];

type Fields = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === "string" ? value : "");
const textOrNull = (value: unknown): string | null => (typeof value === "string" ? value : null);
const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const object = (value: unknown): Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Fields) : {};
const texts = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];

function citations(value: unknown): Citation[] {
  if (!Array.isArray(value)) return [];
  return value.map(object).map((item) => ({ ref: text(item.ref), kind: text(item.kind), key: text(item.key) }));
}

/** The typed event of one server-sent event; null for a name Guide does not send (ignored). */
export function exploreEvent(raw: SseEvent): ExploreEvent | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.data);
  } catch {
    return { type: "error", code: "stream", message: `An event "${raw.event}" of Guide is not JSON.` };
  }
  const d = object(parsed);
  switch (raw.event) {
    case "session":
      return {
        type: "session",
        session_id: text(d.session_id),
        domain: text(d.domain),
        branch: textOrNull(d.branch),
        model: textOrNull(d.model),
        max_steps: typeof d.max_steps === "number" ? d.max_steps : null,
      };
    case "thought":
      return { type: "thought", step: count(d.step), text: text(d.text) };
    case "tool_call":
      return { type: "tool_call", step: count(d.step), tool: text(d.tool), args: object(d.args) };
    case "tool_result":
      return {
        type: "tool_result",
        step: count(d.step),
        tool: text(d.tool),
        ok: d.ok === true,
        summary: text(d.summary),
        refs: texts(d.refs),
      };
    case "error":
      return { type: "error", code: text(d.code), message: text(d.message) };
    case "answer":
      return { type: "answer", text: text(d.text), citations: citations(d.citations), found: d.found === true };
    case "done": {
      const tokens = object(d.tokens);
      return {
        type: "done",
        session_id: text(d.session_id),
        steps: count(d.steps),
        outcome: text(d.outcome),
        tokens: { input: count(tokens.input), output: count(tokens.output) },
        elapsed_ms: count(d.elapsed_ms),
      };
    }
    default:
      return null;
  }
}
