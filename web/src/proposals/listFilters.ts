// The filters of the Proposals list as URL search params (so a link or a reload shows the same
// page) and the query Keeper is asked with. No status param means open Proposals, the ones
// waiting for someone; "all" asks without a status.
export const STATUSES = ["open", "merged", "closed", "all"] as const;
export type StatusFilter = (typeof STATUSES)[number];

export interface ListFilters {
  status: StatusFilter;
  assignedToMe: boolean;
  createdByMe: boolean;
  cursor: string | null;
}

export function readFilters(params: URLSearchParams): ListFilters {
  const status = params.get("status");
  return {
    status: STATUSES.find((s) => s === status) ?? "open",
    assignedToMe: params.get("assigned") === "me",
    createdByMe: params.get("created_by") === "me",
    cursor: params.get("cursor") || null,
  };
}

/** The search params of `filters`; a changed filter drops the cursor (it belongs to one listing). */
export function writeFilters(filters: ListFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.status !== "open") params.set("status", filters.status);
  if (filters.assignedToMe) params.set("assigned", "me");
  if (filters.createdByMe) params.set("created_by", "me");
  if (filters.cursor) params.set("cursor", filters.cursor);
  return params;
}

export interface ListQuery {
  status?: "open" | "merged" | "closed";
  assigned?: "me";
  created_by?: string;
  cursor?: string;
  limit: number;
}

export function listQuery(filters: ListFilters, limit: number): ListQuery {
  const query: ListQuery = { limit };
  if (filters.status !== "all") query.status = filters.status;
  if (filters.assignedToMe) query.assigned = "me";
  if (filters.createdByMe) query.created_by = "me";
  if (filters.cursor) query.cursor = filters.cursor;
  return query;
}
