// Trace steps for tests: a plain successful read, changed where a test says.
import type { TraceStep } from "./timeline";

export function step(over: Partial<TraceStep>): TraceStep {
  return {
    step: 1,
    at: "2026-12-03T16:00:00.000Z",
    seq: 1,
    type: "call",
    domain_id: "supply",
    tool: null,
    method: "GET",
    route: "/api/v1/domains/{domain}/kinds/{kind}/records/{key}",
    status: 200,
    latency_ms: 100,
    cache: "miss",
    query: null,
    result: null,
    refs: null,
    explain: null,
    proposal_id: null,
    note: null,
    note_step: null,
    trace_id: null,
    withheld: false,
    ...over,
  };
}
