// Where a screen reads: the branch and the Revision (or tag) in the URL (?branch=&at=), so a link
// or a reload reads the same point. Null means the default branch at its head.
import { useSearchParams } from "react-router-dom";

export interface ReadPoint {
  branch: string | null;
  at: string | null;
}

export function useReadPoint(): ReadPoint {
  const [params] = useSearchParams();
  return { branch: params.get("branch") || null, at: params.get("at") || null };
}

/** The query parameters of a read at `point` (none for the default branch at its head). */
export function pointQuery(point: ReadPoint): { branch?: string; at?: string } {
  const found: { branch?: string; at?: string } = {};
  if (point.branch) found.branch = point.branch;
  if (point.at) found.at = point.at;
  return found;
}

/** "?branch=..&at=.." to carry the read point to another screen. */
export function pointSearch(point: ReadPoint, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ ...pointQuery(point), ...extra });
  const text = params.toString();
  return text ? `?${text}` : "";
}
