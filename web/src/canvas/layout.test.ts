// @vitest-environment node
import { describe, expect, it } from "vitest";

import { layoutIterations, placeNew } from "./layout";

describe("placeNew", () => {
  it("places an expanded node next to the node it links to", () => {
    const known = new Map([["Supplier/S-1", { x: 100, y: 100 }]]);
    const edges = [
      { from: "Part/P-1", to: "Supplier/S-1", relation: "supplied_by" },
      { from: "PurchaseOrder/PO-1", to: "Part/P-1", relation: "for_part" },
    ];
    const placed = placeNew(["Supplier/S-1", "PurchaseOrder/PO-1", "Part/P-1", "Lone/L-1"], edges, known);
    expect(placed.has("Supplier/S-1")).toBe(false);
    const part = placed.get("Part/P-1");
    const order = placed.get("PurchaseOrder/PO-1");
    expect(part && Math.hypot(part.x - 100, part.y - 100)).toBeCloseTo(1);
    expect(order && part && Math.hypot(order.x - part.x, order.y - part.y)).toBeCloseTo(1);
    const lone = placed.get("Lone/L-1");
    expect(lone && Math.hypot(lone.x, lone.y)).toBeCloseTo(10);
    expect(placeNew(["Part/P-1"], edges, known)).toEqual(placeNew(["Part/P-1"], edges, known));
  });
});

describe("layoutIterations", () => {
  it("runs fewer iterations on bigger graphs, within bounds", () => {
    expect(layoutIterations(0, 0)).toBe(0);
    expect(layoutIterations(10, 10)).toBe(100);
    expect(layoutIterations(2000, 3000)).toBeLessThan(layoutIterations(200, 300));
    expect(layoutIterations(2000, 3000)).toBe(3);
    expect(layoutIterations(100000, 200000)).toBe(3);
  });
});
