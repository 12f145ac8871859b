// The request bodies of the Retrieval lab, written out member by member: the generated types
// list every member of SearchRequest and ContextRequest, null meaning "Keeper's default". The
// nulls are left out of what is sent: Keeper refuses some of them (`values: null` is a 422).
import type { Schemas } from "../api/client";

function withoutNulls<T extends object>(body: T): T {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null)) as T;
}

export type SearchMode = "lexical" | "semantic" | "hybrid";
export type IncludeSchema = "true" | "compact" | "false";

export interface SearchParams {
  mode: SearchMode;
  limit: number | null;
  /** Kinds to search; none searches every readable Kind (or the lens's). */
  kinds: string[];
  lens: string;
}

export interface PackParams {
  budgetTokens: number | null;
  depth: number | null;
  includeSchema: IncludeSchema;
  includeRecentChanges: boolean | null;
  includeLineage: boolean | null;
}

export const DEFAULT_SEARCH: SearchParams = { mode: "lexical", limit: 10, kinds: [], lens: "" };
export const DEFAULT_PACK: PackParams = {
  budgetTokens: 2000,
  depth: 1,
  includeSchema: "compact",
  includeRecentChanges: null,
  includeLineage: null,
};

export function searchBody(
  q: string,
  params: SearchParams,
  branch: string | null,
  queryVector: number[] | null = null,
): Schemas["SearchRequest"] {
  return withoutNulls({
    q,
    mode: params.mode,
    limit: params.limit,
    kinds: params.kinds.length ? params.kinds : null,
    lens: params.lens || null,
    traits: null,
    values: null,
    query_vector: params.mode === "lexical" ? null : queryVector,
    branch,
    // Search reads the head of the branch: Keeper refuses `at`.
    at: null,
  });
}

export function contextBody(
  search: string,
  lens: string,
  params: PackParams,
  branch: string | null,
): Schemas["ContextRequest"] {
  return withoutNulls({
    search,
    lens: lens || null,
    budget_tokens: params.budgetTokens,
    depth: params.depth,
    include_schema: params.includeSchema === "compact" ? "compact" : params.includeSchema === "true",
    include_recent_changes: params.includeRecentChanges,
    include_lineage: params.includeLineage,
    branch,
    format: "json",
    refs: null,
    query: null,
    relations: null,
    traits: null,
    since: null,
  });
}
