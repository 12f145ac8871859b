// One neighborhood read for the Canvas: headers and Link ends only (values: false), since the
// Canvas draws titles and Links and a Record's values are on its Record page.
import { data, type Keeper, type Schemas } from "../api/client";

export interface NeighborhoodAsk {
  refs: string[];
  depth: number;
  branch: string | null;
  at: string | null;
}

export function readNeighborhood(
  api: Keeper,
  domain: string,
  ask: NeighborhoodAsk,
): Promise<Schemas["NeighborhoodAnswer"]> {
  return data(
    api.POST("/api/v1/domains/{domain}/neighborhood", {
      params: { path: { domain } },
      body: { refs: ask.refs, depth: ask.depth, branch: ask.branch, at: ask.at, relations: null, values: false },
    }),
  );
}

/** The words of a cut neighborhood's caps, for the note under the Canvas. */
export function capsNote(caps: readonly string[]): string {
  const names: Record<string, string> = {
    max_fanout: "too many Links from one Record (max_fanout)",
    limit: "the answer's limit",
    max_results: "too many results (max_results)",
    max_records: "too many Records (max_records)",
    max_links: "too many Links (max_links)",
  };
  const said = [...new Set(caps)].map((c) => names[c] ?? c);
  return `The neighborhood was cut: ${said.length ? said.join(", ") : "a limit was reached"}. Expand single Records to see more.`;
}
