// @vitest-environment node
import { describe, expect, it } from "vitest";

import { changeLabel, diffRows } from "./diffRows";
import { formatValue } from "../records/values";
import { shortTime } from "./format";

describe("diffRows", () => {
  it("lists the changed Attributes with their values before and after", () => {
    const rows = diffRows({
      ref: "Supplier/S-1025",
      change: "modified",
      attributes: ["risk_score"],
      before: { risk_score: "40", city: "Zilina" },
      after: { risk_score: "55", city: "Zilina" },
    });
    expect(rows).toEqual([{ attribute: "risk_score", before: "40", after: "55" }]);
  });

  it("lists every Attribute of a created Record, absent before", () => {
    const rows = diffRows({
      ref: "Supplier/S-2000",
      change: "created",
      attributes: [],
      before: null,
      after: { city: "Lyon", tier: 2, tags: ["a"] },
    });
    expect(rows).toEqual([
      { attribute: "city", before: "—", after: "Lyon" },
      { attribute: "tier", before: "—", after: "2" },
      { attribute: "tags", before: "—", after: '["a"]' },
    ]);
  });

  it("names the change", () => {
    expect(changeLabel("created")).toBe("added");
    expect(changeLabel("deleted")).toBe("deleted");
    expect(changeLabel("modified")).toBe("changed");
  });
});

describe("format", () => {
  it("shows values as text and times to the minute", () => {
    expect(formatValue(null)).toBe("—");
    expect(formatValue("***")).toBe("***");
    expect(formatValue({ a: 1 })).toBe('{"a":1}');
    expect(shortTime("2026-12-03T16:49:08.673896Z")).toBe("2026-12-03 16:49 UTC");
    expect(shortTime("yesterday")).toBe("yesterday");
  });
});
