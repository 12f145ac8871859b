// Citations are the only part of an answer that becomes a link (guide.md, "Untrusted text"): to a
// Record page of the app, and only when linkableRef accepts the ref; every other one stays text.
import type { ReadPoint } from "../components/readPoint";
import { linkableRef, recordPath } from "../components/refs";
import type { Citation } from "./events";

export interface CitationView {
  ref: string;
  /** The Record page to link to, or null to show the ref as text. */
  href: string | null;
}

function branchSearch(point: ReadPoint, params = new URLSearchParams()): string {
  // Explore reads the head of the branch on screen, so the links keep the branch and not `at`.
  if (point.branch) params.set("branch", point.branch);
  const text = params.toString();
  return text ? `?${text}` : "";
}

export function citationViews(
  citations: Citation[],
  domain: string,
  kinds: ReadonlySet<string>,
  point: ReadPoint,
): CitationView[] {
  return citations.map((citation) => {
    const ref = linkableRef(citation.ref, kinds);
    return { ref: citation.ref, href: ref ? recordPath(domain, ref) + branchSearch(point) : null };
  });
}

/** The Canvas drawing the linkable cited Records with their neighbors, highlighted; null if none. */
export function canvasHref(views: CitationView[], domain: string, point: ReadPoint): string | null {
  const refs = views.filter((view) => view.href !== null).map((view) => view.ref);
  if (refs.length === 0) return null;
  const params = new URLSearchParams();
  for (const ref of refs) params.append("ref", ref);
  for (const ref of refs) params.append("highlight", ref);
  return `/${encodeURIComponent(domain)}/canvas${branchSearch(point, params)}`;
}

export function tracePath(domain: string, sessionId: string): string {
  return `/${encodeURIComponent(domain)}/agent-activity?${new URLSearchParams({ session: sessionId })}`;
}
