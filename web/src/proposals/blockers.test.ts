// @vitest-environment node
import { describe, expect, it } from "vitest";

import { approvalState, blockerSentences, mergeNotes, mergeRefusals } from "./blockers";
import { testProposal } from "./testProposal";

describe("blockerSentences", () => {
  it("counts the approvals still needed", () => {
    const p = testProposal({ approval: { required: 2, approvals: 0, satisfied: false } });
    expect(blockerSentences(p)).toEqual(["Needs 2 more approvals."]);
    expect(blockerSentences(testProposal())).toEqual(["Needs 1 more approval."]);
  });

  it("counts the open Conflicts and says the others plainly", () => {
    const p = testProposal({
      conflicts: { open: 2, resolved: 1 },
      merge: { blockers: ["open-conflicts", "changes-requested", "review-policy-needs-approval", "something-new"] },
    });
    expect(blockerSentences(p)).toEqual([
      "Has 2 open Conflicts with the target: resolve them first.",
      "A reviewer requested changes: their latest verdict must become an approval.",
      "The Operation's review policy asks for review, and nobody has approved yet.",
      "Blocked: something-new.",
    ]);
  });
});

describe("mergeRefusals", () => {
  it("is empty when nothing blocks and the caller may merge", () => {
    expect(mergeRefusals(testProposal({ merge: { blockers: [] } }), true)).toEqual([]);
  });

  it("names a missing proposal.merge and a Proposal no longer open", () => {
    expect(mergeRefusals(testProposal({ merge: { blockers: [] } }), false)).toEqual([
      "Your grants do not include proposal.merge on main: someone who holds it merges.",
    ]);
    expect(mergeRefusals(testProposal({ status: "merged" }), true)).toEqual(["This Proposal is merged already."]);
    expect(mergeRefusals(testProposal({ status: "closed" }), true)).toEqual(["This Proposal is closed."]);
  });
});

describe("approvalState", () => {
  it("says approved, pending or none required", () => {
    expect(approvalState({ required: 1, approvals: 1, satisfied: true })).toBe("approved (1 of 1)");
    expect(approvalState({ required: 1, approvals: 0, satisfied: false })).toBe("0 of 1 approvals");
    expect(approvalState({ required: 0, approvals: 0, satisfied: true })).toBe("none required");
  });
});

describe("mergeNotes", () => {
  const attempt = { id: "mat_1", open_conflicts: 0, resolved_conflicts: 0, counts: {} };
  it("says when the target moved since the source was cut", () => {
    expect(mergeNotes(testProposal({ attempt: { ...attempt, result: "merge" } }))).toEqual([
      "The target moved since the source was cut: the merge combines the changes of both sides.",
    ]);
    expect(mergeNotes(testProposal({ attempt: { ...attempt, result: "fast_forward" } }))).toEqual([]);
    expect(mergeNotes(testProposal({ status: "merged", attempt: { ...attempt, result: "merge" } }))).toEqual([]);
  });
});
