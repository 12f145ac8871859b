// A Proposal document as Keeper answers it (an agent's task Proposal, open, waiting for one
// approval), for the tests to vary.
import type { Schemas } from "../api/client";

export function testProposal(changes: Partial<Schemas["Proposal"]> = {}): Schemas["Proposal"] {
  return {
    id: "prp_01M8YCYH3R1K9G3ZVNWXEEC55Q",
    domain: "supply",
    title: "Agent svc_agent: q4-audit-s-1024",
    description: "The Q4 delivery audit found two missed delivery dates",
    intent: "The Q4 delivery audit found two missed delivery dates",
    task: "q4-audit-s-1024",
    status: "open",
    source_ref: "agent/svc_agent/q4-audit-s-1024",
    target_ref: "main",
    url: "/api/v1/domains/supply/proposals/prp_01M8YCYH3R1K9G3ZVNWXEEC55Q",
    created_by: "svc_agent",
    created_at: "2026-12-03T16:49:06.123456Z",
    updated_at: "2026-12-03T16:49:08.673896Z",
    executions: [],
    approval: { required: 1, approvals: 0, satisfied: false },
    reviews: [],
    conflicts: { open: 0, resolved: 0 },
    attempt: null,
    merge: { blockers: ["approvals-pending"] },
    merged_revision: null,
    merged_by: null,
    merged_at: null,
    closed_by: null,
    closed_at: null,
    next: [],
    ...changes,
  };
}
