// Merging (and closing) a Proposal. The Merge button is on only when Keeper names no blocker and
// the caller holds proposal.merge on the target; otherwise each reason is said in plain words. A
// merge names the source head the diff on screen was read at, so a source that moved since is
// refused (409 stale-head) rather than merged unseen. Once merged: the merge Revision, and the
// Domain's overview at it.
import { useState } from "react";
import { Link } from "react-router-dom";

import type { Schemas } from "../api/client";
import { useCloseProposal, useMergeProposal } from "../api/queries";
import { ProblemView } from "../components/Problem";
import { useSession } from "../session";
import { mergeNotes, mergeRefusals } from "./blockers";
import { shortTime } from "./format";
import { hasPermission } from "./grants";

/** What a merge refusal means for the person at the screen, beyond Keeper's detail. */
function refusalHint(code: string): string | null {
  if (code === "merge-conflicts")
    return "The target moved, and merging now meets Conflicts: resolve them below, then merge again.";
  if (code === "stale-head")
    return "The source changed since this page read its diff: read the diff again before merging.";
  if (code === "merge-blocked") return "Something changed since this page was read: see the blockers below.";
  return null;
}

export function MergePanel(props: { proposal: Schemas["Proposal"]; sourceHead: string | null }) {
  const { proposal } = props;
  const { whoami } = useSession();
  const mergeWrite = useMergeProposal(proposal);
  const closeWrite = useCloseProposal(proposal);
  const [message, setMessage] = useState("");
  const mayMerge = hasPermission(whoami, proposal.domain, proposal.target_ref, "proposal.merge");
  const mayClose = mayMerge || whoami?.principal === proposal.created_by;
  const refusals = mergeRefusals(proposal, mayMerge);
  // One refusal shows at a time: the one of the last try, merge or close.
  const busy = mergeWrite.isPending || closeWrite.isPending;
  const problem = mergeWrite.error ?? closeWrite.error;

  function merge() {
    closeWrite.reset();
    mergeWrite.mutate({ message: message.trim() || null, expected_source_head: props.sourceHead });
  }

  function close() {
    mergeWrite.reset();
    closeWrite.mutate();
  }

  const merged = proposal.merged_revision;
  const hint = problem ? refusalHint(problem.code) : null;
  return (
    <section aria-labelledby="merge-heading">
      <h2 id="merge-heading">Merge</h2>
      {merged ? (
        <p role="status">
          Merged into <code>{proposal.target_ref}</code> as Revision <code>{merged.slice(0, 12)}</code>
          {proposal.merged_by && ` by ${proposal.merged_by}`}
          {proposal.merged_at && ` at ${shortTime(proposal.merged_at)}`}.{" "}
          <Link to={`/${encodeURIComponent(proposal.domain)}/?at=${encodeURIComponent(merged)}`}>
            See the Domain at this Revision
          </Link>
        </p>
      ) : (
        <>
          {refusals.length > 0 && (
            <ul aria-label="Why it cannot merge">
              {refusals.map((r) => (
                <li key={r}>{r}</li>
              ))}
            </ul>
          )}
          {mergeNotes(proposal).map((note) => (
            <p key={note} className="hint">
              {note}
            </p>
          ))}
          {proposal.status === "open" && (
            <div className="filters">
              <label>
                Merge message
                <input value={message} onChange={(e) => setMessage(e.target.value)} placeholder="optional" />
              </label>
              <button type="button" className="primary" disabled={refusals.length > 0 || busy} onClick={merge}>
                Merge
              </button>
              {mayClose && (
                <button type="button" disabled={busy} onClick={close}>
                  Close Proposal
                </button>
              )}
            </div>
          )}
        </>
      )}
      {problem && (
        <>
          <ProblemView problem={problem} />
          {hint && <p>{hint}</p>}
        </>
      )}
    </section>
  );
}
