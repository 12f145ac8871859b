// The branch and Revision pickers: everything on screen is read `at` the Revision (or tag)
// chosen here, on the branch chosen here; both are written in the URL.
import { useSearchParams } from "react-router-dom";

import { useBranchChanges, useBranches, useTags } from "../api/queries";
import { useReadPoint } from "./readPoint";
import { useDomain } from "./schema";

export function ReadPointPicker() {
  const { domain, schema } = useDomain();
  const point = useReadPoint();
  const [params, setParams] = useSearchParams();
  const branch = point.branch ?? schema.branch;
  const branches = useBranches(domain);
  const tags = useTags(domain);
  const revisions = useBranchChanges(domain, branch);

  function choose(name: string, value: string) {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    if (name === "branch") next.delete("at");
    setParams(next);
  }

  const events = revisions.data?.events ?? [];
  return (
    <div className="read-point" role="group" aria-label="Read point">
      <label>
        Branch{" "}
        <select value={point.branch ?? ""} onChange={(e) => choose("branch", e.target.value)}>
          <option value="">{schema.branch} (default)</option>
          {(branches.data?.branches ?? [])
            .filter((b) => b.name !== schema.branch)
            .map((b) => (
              <option key={b.name} value={b.name}>
                {b.name}
              </option>
            ))}
        </select>
      </label>
      <label>
        Revision{" "}
        <select value={point.at ?? ""} onChange={(e) => choose("at", e.target.value)}>
          <option value="">head</option>
          {(tags.data?.tags ?? []).map((t) => (
            <option key={`tag:${t.name}`} value={t.name}>
              tag {t.name}
            </option>
          ))}
          {[...events].reverse().map((e) => (
            <option key={e.revision} value={e.revision}>
              {e.generation !== undefined ? `#${e.generation} ` : ""}
              {e.revision.slice(0, 12)} {e.message ?? ""}
            </option>
          ))}
          {point.at && !events.some((e) => e.revision === point.at) && (
            <option value={point.at}>{point.at.slice(0, 12)}</option>
          )}
        </select>
      </label>
      {revisions.problem && (
        <span className="muted">
          {revisions.problem.status === 403
            ? "Your grants do not include this branch's history: only the head and tags are offered; a Revision id in the URL (at=) still works."
            : `The branch's Revisions could not be listed: ${revisions.problem.message}`}
        </span>
      )}
      {point.at && <span className="badge warn">Reading at {point.at.slice(0, 12)}, not the head</span>}
    </div>
  );
}
