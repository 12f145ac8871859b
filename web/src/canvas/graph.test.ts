// @vitest-environment node
import { describe, expect, it } from "vitest";

import type { Schemas } from "../api/client";
import { drawnRelations, EMPTY_GRAPH, mergeGraphs, neighborhoodGraph } from "./graph";

const answer: Schemas["NeighborhoodAnswer"] = {
  domain: "supply",
  branch: "main",
  revision: "r1",
  seeds: [{ ref: "Supplier/S-1", kind: "Supplier", key: "S-1", title: "Kavsen" }],
  missing: [],
  neighbors: [{ ref: "Part/P-1", kind: "Part", title: "Flange", depth: 1 }],
  links: {
    supplied_by: [{ from: "Part/P-1", to: "Supplier/S-1" }],
    ordered_from: [{ from: "PurchaseOrder/PO-1", to: "Supplier/S-1" }],
  },
  capped: false,
  caps: [],
};

describe("neighborhoodGraph", () => {
  it("takes seeds, neighbors and Links, and gives every Link end a node", () => {
    const graph = neighborhoodGraph(answer);
    expect(graph.nodes.map((n) => n.ref)).toEqual(["Supplier/S-1", "Part/P-1", "PurchaseOrder/PO-1"]);
    expect(graph.nodes[2]).toEqual({ ref: "PurchaseOrder/PO-1", kind: "PurchaseOrder", title: null });
    expect(graph.edges).toContainEqual({ from: "Part/P-1", to: "Supplier/S-1", relation: "supplied_by" });
    expect(drawnRelations(graph)).toEqual(["ordered_from", "supplied_by"]);
  });
});

describe("mergeGraphs", () => {
  it("keeps each node and edge once and fills a missing title", () => {
    const first = neighborhoodGraph(answer);
    const second = {
      nodes: [
        { ref: "PurchaseOrder/PO-1", kind: "PurchaseOrder", title: "PO-1" },
        { ref: "Supplier/S-1", kind: "Supplier", title: null },
      ],
      edges: [
        { from: "Part/P-1", to: "Supplier/S-1", relation: "supplied_by" },
        { from: "Part/P-1", to: "Supplier/S-1", relation: "alternate_for" },
      ],
    };
    const merged = mergeGraphs(first, second);
    expect(merged.nodes).toHaveLength(3);
    expect(merged.nodes.find((n) => n.ref === "PurchaseOrder/PO-1")?.title).toBe("PO-1");
    expect(merged.nodes.find((n) => n.ref === "Supplier/S-1")?.title).toBe("Kavsen");
    expect(merged.edges).toHaveLength(3);
    expect(mergeGraphs(merged, merged)).toEqual(merged);
    expect(mergeGraphs(EMPTY_GRAPH, EMPTY_GRAPH)).toEqual(EMPTY_GRAPH);
  });
});
