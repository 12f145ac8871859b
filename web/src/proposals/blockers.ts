// Why a Proposal cannot merge, in plain words: Keeper's blocker codes (docs/writes.md,
// "Approvals") made into sentences with the counts of the Proposal, and the approval state a
// list row shows.
import type { Schemas } from "../api/client";

type Proposal = Schemas["Proposal"];

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** One sentence per blocker of `merge.blockers`; unknown codes are shown as they are. */
export function blockerSentences(proposal: Proposal): string[] {
  const missing = Math.max(proposal.approval.required - proposal.approval.approvals, 1);
  return proposal.merge.blockers.map((code) => {
    switch (code) {
      case "approvals-pending":
        return `Needs ${plural(missing, "more approval", "more approvals")}.`;
      case "open-conflicts":
        return `Has ${plural(Math.max(proposal.conflicts.open, 1), "open Conflict", "open Conflicts")} with the target: resolve them first.`;
      case "changes-requested":
        return "A reviewer requested changes: their latest verdict must become an approval.";
      case "review-policy-needs-approval":
        return "The Operation's review policy asks for review, and nobody has approved yet.";
      case "auto-merge-not-allowed":
        return "Automatic merge is not allowed for this task; someone must merge it.";
      default:
        return `Blocked: ${code}.`;
    }
  });
}

/** Every reason the Merge button is off for this caller, blockers included; none: it may merge. */
export function mergeRefusals(proposal: Proposal, mayMerge: boolean): string[] {
  if (proposal.status === "merged") return ["This Proposal is merged already."];
  if (proposal.status === "closed") return ["This Proposal is closed."];
  const reasons = blockerSentences(proposal);
  if (!mayMerge)
    reasons.push(`Your grants do not include proposal.merge on ${proposal.target_ref}: someone who holds it merges.`);
  return reasons;
}

/** The approval state in a few words: "approved (1 of 1)", "0 of 1 approvals", "none required". */
export function approvalState(approval: Schemas["Approval"]): string {
  if (approval.required === 0)
    return approval.approvals ? `none required (${approval.approvals} given)` : "none required";
  if (approval.satisfied) return `approved (${approval.approvals} of ${approval.required})`;
  return `${approval.approvals} of ${approval.required} approvals`;
}

/** What the last merge attempt found that blocks nothing but is worth knowing before merging. */
export function mergeNotes(proposal: Proposal): string[] {
  if (proposal.status !== "open" || !proposal.attempt) return [];
  if (proposal.attempt.result === "merge")
    return ["The target moved since the source was cut: the merge combines the changes of both sides."];
  if (proposal.attempt.result === "up_to_date")
    return ["The target has every change of the source already: the merge brings nothing."];
  return [];
}
