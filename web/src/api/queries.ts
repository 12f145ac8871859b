// Every read of Keeper the screens make, as TanStack Query hooks over the typed client, and the
// writes of the Proposal screen with what they make stale. One QueryClient per sign-in
// (KeeperQueries.tsx), so one caller's answers never show to the next.
//
// Freshness: an answer is stale at once (staleTime 0), so a screen that mounts reads again while
// it shows what the cache holds; a write drops every answer of its Domain that is off screen and
// reads again what it changed on screen (afterWrite). Keys: ["domain", <name>, ...] for all of a
// Domain (one call reaches them), ["domains"] and ["trace", ...] for the rest; the read point is
// in the key of every read that takes one. No retries: a refusal is Keeper's answer, shown as is.
import {
  keepPreviousData,
  QueryClient,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryKey,
} from "@tanstack/react-query";
import { useCallback } from "react";

import { readNeighborhood, type NeighborhoodAsk } from "../canvas/neighborhood";
import { pointQuery, type ReadPoint } from "../components/readPoint";
import type { ListQuery } from "../proposals/listFilters";
import { loadProposalDiff } from "../proposals/proposalDiff";
import { useApi } from "../session";
import { ApiProblem, asProblem, data, type Keeper, type Schemas } from "./client";

/** One read as a screen shows it: its data (the previous key's while a new key loads, as the
 * screens keep their content when the read point moves), its refusal, and whether it is under way. */
export interface Read<T> {
  data: T | null;
  problem: ApiProblem | null;
  loading: boolean;
}

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // The screens read again when they mount, not when the window regains focus.
      queries: { staleTime: 0, retry: false, refetchOnWindowFocus: false, refetchOnReconnect: false },
      mutations: { retry: false },
    },
  });
}

async function asRead<T>(load: Promise<T>): Promise<T> {
  try {
    return await load;
  } catch (error: unknown) {
    throw asProblem(error);
  }
}

function useKeeperRead<T>(queryKey: QueryKey, load: (api: Keeper) => Promise<T>, enabled = true): Read<T> {
  const api = useApi();
  const query = useQuery<T, ApiProblem>({
    queryKey,
    queryFn: () => asRead(load(api)),
    enabled,
    placeholderData: enabled ? keepPreviousData : undefined,
  });
  return { data: query.isError ? null : (query.data ?? null), problem: query.error, loading: query.isFetching };
}

// -- the Domains and their schema, branches and history -------------------------------------------

export function useDomains() {
  return useKeeperRead(["domains"], (api) => data(api.GET("/api/v1/domains")));
}

export function useDomainSchema(domain: string, point: ReadPoint) {
  const query = pointQuery(point);
  return useKeeperRead(
    ["domain", domain, "schema", query],
    (api) =>
      data(api.GET("/api/v1/domains/{domain}/schema", { params: { path: { domain }, query } })) as Promise<
        Schemas["SchemaAnswer"]
      >,
  );
}

export function useBranches(domain: string) {
  return useKeeperRead(["domain", domain, "branches"], (api) =>
    data(api.GET("/api/v1/domains/{domain}/branches", { params: { path: { domain } } })),
  );
}

export function useTags(domain: string) {
  return useKeeperRead(["domain", domain, "tags"], (api) =>
    data(api.GET("/api/v1/domains/{domain}/tags", { params: { path: { domain } } })),
  );
}

/** The last `limit` changes of `branch` (the overview and the Revision picker share them). */
export function useBranchChanges(domain: string, branch: string, limit = 200) {
  return useKeeperRead(["domain", domain, "changes", branch, limit], (api) =>
    data(
      api.GET("/api/v1/domains/{domain}/branches/{branch}/changes", {
        params: { path: { domain, branch }, query: { limit } },
      }),
    ),
  );
}

export function useHealth(domain: string, point: ReadPoint) {
  const query = pointQuery(point);
  return useKeeperRead(
    ["domain", domain, "health", query],
    (api) =>
      data(api.GET("/api/v1/domains/{domain}/health", { params: { path: { domain }, query } })) as Promise<
        Schemas["HealthAnswer"]
      >,
  );
}

// -- Records ------------------------------------------------------------------------------------

/** A Kind's table: one POST /query (its body carries the read point). */
export function useRecordQuery(domain: string, body: Schemas["QueryRequest"]) {
  return useKeeperRead(["domain", domain, "query", body], (api) =>
    data(api.POST("/api/v1/domains/{domain}/query", { params: { path: { domain } }, body })),
  );
}

/** A Record with its Link counts and the lineage of each value. */
export function useRecord(domain: string, kind: string, key: string, point: ReadPoint) {
  const query = { ...pointQuery(point), links: true, lineage: true };
  return useKeeperRead(
    ["domain", domain, "record", kind, key, query],
    (api) =>
      data(
        api.GET("/api/v1/domains/{domain}/kinds/{kind}/records/{key}", {
          params: { path: { domain, kind, key }, query },
        }),
      ) as Promise<Schemas["RecordAnswer"]>,
  );
}

/** The first 100 Links of one Relation of a Record; nothing is read until `enabled`. */
export function useRelationLinks(
  domain: string,
  target: { kind: string; key: string; relation: string },
  point: ReadPoint,
  enabled: boolean,
) {
  const query = { ...pointQuery(point), limit: 100 };
  return useKeeperRead(
    ["domain", domain, "record", target.kind, target.key, "links", target.relation, query],
    (api) =>
      data(
        api.GET("/api/v1/domains/{domain}/kinds/{kind}/records/{key}/links/{relation}", {
          params: { path: { domain, ...target }, query },
        }),
      ),
    enabled,
  );
}

export function useRecordHistory(domain: string, kind: string, key: string, point: ReadPoint) {
  const query = { ...pointQuery(point), values: true, limit: 50 };
  return useKeeperRead(["domain", domain, "record", kind, key, "history", query], (api) =>
    data(
      api.GET("/api/v1/domains/{domain}/kinds/{kind}/records/{key}/history", {
        params: { path: { domain, kind, key }, query },
      }),
    ),
  );
}

export function useRecordExplain(domain: string, kind: string, key: string, point: ReadPoint) {
  const query = pointQuery(point);
  return useKeeperRead(
    ["domain", domain, "record", kind, key, "explain", query],
    (api) =>
      data(
        api.GET("/api/v1/domains/{domain}/kinds/{kind}/records/{key}/explain", {
          params: { path: { domain, kind, key }, query },
        }),
      ) as Promise<Schemas["ExplainAnswer"]>,
  );
}

// -- the Canvas -----------------------------------------------------------------------------------

function neighborhoodKey(domain: string, ask: NeighborhoodAsk): QueryKey {
  return ["domain", domain, "neighborhood", ask];
}

/** The neighborhood of `ask`'s Records; nothing is read (and the data is null) without one. */
export function useNeighborhood(domain: string, ask: NeighborhoodAsk | null) {
  const wanted = ask !== null && ask.refs.length > 0;
  return useKeeperRead(
    wanted ? neighborhoodKey(domain, ask) : ["domain", domain, "neighborhood", null],
    (api) => readNeighborhood(api, domain, ask ?? { refs: [], depth: 1, branch: null, at: null }),
    wanted,
  );
}

/** Reads one more neighborhood on demand (the Canvas's Expand), through the same cache. */
export function useFetchNeighborhood(domain: string): (ask: NeighborhoodAsk) => Promise<Schemas["NeighborhoodAnswer"]> {
  const api = useApi();
  const client = useQueryClient();
  return useCallback(
    (ask: NeighborhoodAsk) =>
      client.fetchQuery({
        queryKey: neighborhoodKey(domain, ask),
        queryFn: () => asRead(readNeighborhood(api, domain, ask)),
      }),
    [api, client, domain],
  );
}

// -- Proposals ----------------------------------------------------------------------------------

export function useProposals(domain: string, query: ListQuery) {
  return useKeeperRead(["domain", domain, "proposals", query], (api) =>
    data(api.GET("/api/v1/domains/{domain}/proposals", { params: { path: { domain }, query } })),
  );
}

function proposalKey(domain: string, id: string): QueryKey {
  return ["domain", domain, "proposal", id];
}

export function useProposal(domain: string, id: string) {
  return useKeeperRead(proposalKey(domain, id), (api) =>
    data(api.GET("/api/v1/domains/{domain}/proposals/{proposal}", { params: { path: { domain, proposal: id } } })),
  );
}

/** The Conflicts of the Proposal's last merge attempt, read again whenever the Proposal changed. */
export function useProposalConflicts(proposal: Schemas["Proposal"]) {
  const { domain, id } = proposal;
  return useKeeperRead([...proposalKey(domain, id), "conflicts", proposal.updated_at], (api) =>
    data(
      api.GET("/api/v1/domains/{domain}/proposals/{proposal}/conflicts", {
        params: { path: { domain, proposal: id } },
      }),
    ),
  );
}

/** The Proposal's diff (proposalDiff.ts says which two ends), read again whenever it changed. */
export function useProposalDiff(proposal: Schemas["Proposal"]) {
  const { domain, id } = proposal;
  return useKeeperRead(["domain", domain, "diff", id, proposal.status, proposal.updated_at], (api) =>
    loadProposalDiff(api, domain, proposal),
  );
}

/** After a write of `proposal`: forget every answer of its Domain that is off screen (a merge
 * changes the target's Records, history and health), and read the Proposal and its Conflicts
 * again; its diff follows the Proposal's status and updated_at. */
async function afterWrite(client: QueryClient, proposal: Schemas["Proposal"]): Promise<void> {
  client.removeQueries({ queryKey: ["domain", proposal.domain], type: "inactive" });
  await client.invalidateQueries({ queryKey: proposalKey(proposal.domain, proposal.id) });
}

/** A write of the Proposal screen, its refusal an ApiProblem, then `afterWrite` (after success, or
 * after either outcome with `always`: a refused merge may have found Conflicts). */
function useProposalWrite<V, T>(
  proposal: Schemas["Proposal"],
  write: (api: Keeper, vars: V) => Promise<T>,
  always = false,
) {
  const api = useApi();
  const client = useQueryClient();
  const refresh = () => void afterWrite(client, proposal);
  return useMutation<T, ApiProblem, V>({
    mutationFn: (vars) => asRead(write(api, vars)),
    onSuccess: refresh,
    onError: always ? refresh : undefined,
  });
}

export function useReviewProposal(proposal: Schemas["Proposal"]) {
  const path = { domain: proposal.domain, proposal: proposal.id };
  return useProposalWrite(proposal, (api, body: Schemas["ReviewRequest"]) =>
    data(api.POST("/api/v1/domains/{domain}/proposals/{proposal}/reviews", { params: { path }, body })),
  );
}

export function useMergeProposal(proposal: Schemas["Proposal"]) {
  const path = { domain: proposal.domain, proposal: proposal.id };
  return useProposalWrite(
    proposal,
    (api, body: Schemas["MergeRequest"]) =>
      data(api.POST("/api/v1/domains/{domain}/proposals/{proposal}/merge", { params: { path }, body })),
    true,
  );
}

export function useCloseProposal(proposal: Schemas["Proposal"]) {
  const path = { domain: proposal.domain, proposal: proposal.id };
  return useProposalWrite(proposal, (api, _: void) =>
    data(api.POST("/api/v1/domains/{domain}/proposals/{proposal}/close", { params: { path } })),
  );
}

export function useResolveConflict(proposal: Schemas["Proposal"]) {
  const { domain, id } = proposal;
  return useProposalWrite(proposal, (api, vars: { conflict: string; body: Schemas["ResolveRequest"] }) =>
    data(
      api.POST("/api/v1/domains/{domain}/proposals/{proposal}/conflicts/{conflict}/resolve", {
        params: { path: { domain, proposal: id, conflict: vars.conflict } },
        body: vars.body,
      }),
    ),
  );
}

// -- the agent trace ------------------------------------------------------------------------------

/** A page of the trace sessions that touched `domain` (50 a page, from `cursor`). */
export function useTraceSessions(domain: string, cursor: string | null) {
  return useKeeperRead(["trace", "sessions", domain, cursor], (api) =>
    data(
      api.GET("/api/v1/trace/sessions", {
        params: { query: { domain_id: domain, limit: 50, ...(cursor ? { cursor } : {}) } },
      }),
    ),
  );
}

/** One trace session of the caller, or of `actor`. */
export function useTraceSession(session: string, actor: string | null) {
  return useKeeperRead(["trace", "session", session, actor], (api) =>
    data(
      api.GET("/api/v1/trace/sessions/{session_id}", {
        params: { path: { session_id: session }, query: actor ? { actor } : {} },
      }),
    ),
  );
}
