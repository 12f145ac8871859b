// @vitest-environment node
import { describe, expect, it } from "vitest";

import { step } from "./testSteps";
import { barPercent, countsText, formatDuration, gapMs, timelineRows, touchedGraph } from "./timeline";

describe("timelineRows", () => {
  const steps = [
    step({ step: 3, seq: 3, at: "2026-12-03T16:00:12.600Z", latency_ms: 50 }),
    step({ step: 1, seq: 1, latency_ms: 400, cache: "hit" }),
    step({ step: 2, seq: 2, at: "2026-12-03T16:00:00.500Z", latency_ms: 100, withheld: true }),
  ];

  it("orders steps and adds a gap row for unaccounted time", () => {
    const rows = timelineRows(steps);
    expect(rows.map((r) => (r.type === "gap" ? `gap ${r.ms}` : `step ${r.step.step}`))).toEqual([
      "step 1",
      "step 2",
      "gap 12000",
      "step 3",
    ]);
    expect(formatDuration(12000)).toBe("12 s");
  });

  it("measures a gap from the previous step's end, never below zero", () => {
    expect(gapMs(step({ latency_ms: 400 }), step({ at: "2026-12-03T16:00:01.000Z" }))).toBe(600);
    expect(gapMs(step({ latency_ms: 4000 }), step({ at: "2026-12-03T16:00:01.000Z" }))).toBe(0);
  });

  it("marks withheld steps and cache hits", () => {
    const rows = timelineRows(steps).filter((r) => r.type === "step");
    expect(rows.map((r) => r.type === "step" && r.withheld)).toEqual([false, true, false]);
    expect(rows.map((r) => r.type === "step" && r.cacheHit)).toEqual([true, false, false]);
  });

  it("scales latency bars to the slowest call", () => {
    const bars = timelineRows(steps).flatMap((r) => (r.type === "step" ? [r.barPercent] : []));
    expect(bars).toEqual([100, 25, 12.5]);
    expect(barPercent(null, 400)).toBe(0);
    expect(barPercent(1, 100000)).toBe(1);
  });
});

describe("formatDuration", () => {
  it("reads as a person would say it", () => {
    expect(formatDuration(3.085)).toBe("3 ms");
    expect(formatDuration(184000)).toBe("3 min 4 s");
    expect(formatDuration(120000)).toBe("2 min");
    expect(formatDuration(3_900_000)).toBe("1 h 5 min");
  });
});

describe("countsText and touchedGraph", () => {
  const read = step({
    result: { counts: { links: 14, neighbors: 10 }, truncated: false },
    refs: [
      { kind: "Supplier", key: "S-1001" },
      { kind: "Part", key: "P-1" },
      { relation: "supplied_by", from: "Part/P-1", to: "Supplier/S-1001" },
    ],
  });

  it("says the counts of a result", () => {
    expect(countsText(read)).toBe("links 14 · neighbors 10");
    expect(countsText(step({}))).toBe("");
  });

  it("collects the Records and Links touched in the Domain", () => {
    const other = step({ domain_id: "hr", refs: [{ kind: "Person", key: "E-1" }] });
    const graph = touchedGraph([read, other], "supply");
    expect(graph.nodes.map((n) => n.ref)).toEqual(["Supplier/S-1001", "Part/P-1"]);
    expect(graph.edges).toEqual([{ relation: "supplied_by", from: "Part/P-1", to: "Supplier/S-1001" }]);
  });
});
