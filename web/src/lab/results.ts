// One run of the lab reduced to what the two sides compare: the Records it returned, in order.
import type { Schemas } from "../api/client";

export interface ResultItem {
  ref: string;
  title: string;
  /** Score of a hit, or the depth of a pack's neighbor (0 for a seed). */
  detail: string;
}

export type RunResult =
  | { mode: "search"; answer: Schemas["SearchAnswer"]; items: ResultItem[] }
  | { mode: "context"; answer: Schemas["ContextAnswer"]; items: ResultItem[] };

export function searchItems(answer: Schemas["SearchAnswer"]): ResultItem[] {
  return answer.hits.map((hit) => ({
    ref: hit.ref,
    title: hit.title,
    detail: `score ${hit.score}${hit.matched.length ? `, matched ${hit.matched.join(", ")}` : ""}`,
  }));
}

export function packItems(answer: Schemas["ContextAnswer"]): ResultItem[] {
  const seeds = (answer.seeds ?? []).map((seed) => ({ ref: seed.ref, title: seed.title ?? "", detail: "seed" }));
  const neighbors = (answer.neighbors ?? []).map((neighbor) => ({
    ref: neighbor.ref,
    title: neighbor.title ?? "",
    detail: `neighbor at depth ${neighbor.depth}`,
  }));
  return [...seeds, ...neighbors];
}
