// What the Canvas draws, as plain lists: Records (nodes) and Links (edges), merged from
// neighborhood answers and trace steps. Kept apart from sigma so it can be tested without WebGL.
import type { Schemas } from "../api/client";
import { parseRef } from "../components/refs";

export interface CanvasNode {
  ref: string;
  kind: string;
  /** The Record's title (text of the graph: untrusted), null when the answer gave none. */
  title: string | null;
}

export interface CanvasEdge {
  from: string;
  to: string;
  relation: string;
}

export interface CanvasGraph {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
}

export const EMPTY_GRAPH: CanvasGraph = { nodes: [], edges: [] };

export function edgeKey(edge: CanvasEdge): string {
  return `${edge.relation}\u0000${edge.from}\u0000${edge.to}`;
}

function nodeOf(ref: string): CanvasNode {
  return { ref, kind: parseRef(ref)?.kind ?? "", title: null };
}

/**
 * `base` with the nodes and edges of `more` added: a node once per ref (a title found later fills
 * one missing before), an edge once per Relation and ends, and a node for every edge end that has
 * none, so that no edge dangles. Order is kept: base first, then what is new.
 */
export function mergeGraphs(base: CanvasGraph, more: CanvasGraph): CanvasGraph {
  const nodes = new Map(base.nodes.map((n) => [n.ref, n]));
  for (const node of more.nodes) {
    const known = nodes.get(node.ref);
    if (!known) nodes.set(node.ref, node);
    else if (known.title === null && node.title !== null) nodes.set(node.ref, { ...known, title: node.title });
  }
  const edges = new Map(base.edges.map((e) => [edgeKey(e), e]));
  for (const edge of more.edges) {
    if (!edges.has(edgeKey(edge))) edges.set(edgeKey(edge), edge);
  }
  for (const edge of edges.values()) {
    for (const end of [edge.from, edge.to]) if (!nodes.has(end)) nodes.set(end, nodeOf(end));
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}

/** The seeds, neighbors and Links of a neighborhood answer. */
export function neighborhoodGraph(answer: Schemas["NeighborhoodAnswer"]): CanvasGraph {
  const nodes: CanvasNode[] = [
    ...answer.seeds.map((s) => ({ ref: s.ref, kind: s.kind, title: s.title ?? null })),
    ...answer.neighbors.map((n) => ({ ref: n.ref, kind: n.kind, title: n.title ?? null })),
  ];
  const edges: CanvasEdge[] = [];
  for (const [relation, links] of Object.entries(answer.links)) {
    for (const link of links) edges.push({ from: link.from, to: link.to, relation });
  }
  return mergeGraphs(EMPTY_GRAPH, { nodes, edges });
}

/** The sorted Relations drawn, for the legend. */
export function drawnRelations(graph: CanvasGraph): string[] {
  return [...new Set(graph.edges.map((e) => e.relation))].sort();
}
