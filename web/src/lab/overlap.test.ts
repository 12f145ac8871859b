// @vitest-environment node
import { describe, expect, it } from "vitest";

import { overlap, overlapSummary } from "./overlap";

describe("overlap", () => {
  it("counts the refs both lists hold and those only one holds", () => {
    const found = overlap(["A/1", "A/2", "A/3", "A/4", "A/5"], ["A/3", "A/1", "B/9", "A/5"]);
    expect([...found.both]).toEqual(["A/1", "A/3", "A/5"]);
    expect(found.onlyA).toEqual(["A/2", "A/4"]);
    expect(found.onlyB).toEqual(["B/9"]);
    expect(overlapSummary(found)).toBe("3 in both, 2 only in A, 1 only in B");
  });

  it("counts a ref repeated in one list once", () => {
    expect(overlapSummary(overlap(["A/1", "A/1"], []))).toBe("0 in both, 1 only in A, 0 only in B");
  });
});
