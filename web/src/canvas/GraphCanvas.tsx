// The Canvas: Records and Links drawn by sigma (WebGL) from a graphology graph. Labels are text of
// the graph and sigma paints them on a canvas, never as HTML. The view is mouse-only: screens
// using it list the same nodes in an accessible control.
import Graph from "graphology";
import forceAtlas2 from "graphology-layout-forceatlas2";
import { useEffect, useRef } from "react";
import Sigma from "sigma";

import { DIMMED, NODE, relationColor, SELECTED } from "./colors";
import { edgeKey, type CanvasEdge, type CanvasNode } from "./graph";
import { layoutIterations, placeNew } from "./layout";
import { rememberedPositions, rememberPositions, type Positions } from "./positions";

interface NodeAttributes {
  x: number;
  y: number;
  label: string;
  color: string;
  size: number;
}

interface EdgeAttributes {
  color: string;
  size: number;
  relation: string;
}

type CanvasGraphology = Graph<NodeAttributes, EdgeAttributes>;

declare global {
  interface Window {
    /** The mounted Canvas, for the browser performance test. */
    __lorebaseCanvas?: { sigma: Sigma<NodeAttributes, EdgeAttributes>; graph: CanvasGraphology };
  }
}

export interface GraphCanvasProps {
  nodes: readonly CanvasNode[];
  edges: readonly CanvasEdge[];
  /** Where positions are kept: `${domain}@${revision}`. */
  positionsKey: string;
  /** The Domain's Relations, so colours match the legend and stay put as the graph grows. */
  relations: readonly string[];
  /** Refs drawn emphasised; the others are dimmed. Empty or absent: all drawn alike. */
  highlight?: ReadonlySet<string>;
  selected?: string | null;
  onNodeClick?: (ref: string) => void;
  label: string;
}

const NODE_SIZE = 5;

/** Brings `graph` to the given nodes and edges; true when some node had no position yet. */
function syncGraph(
  graph: CanvasGraphology,
  props: Pick<GraphCanvasProps, "nodes" | "edges" | "relations">,
  remembered: Positions,
): boolean {
  const wantedNodes = new Set(props.nodes.map((n) => n.ref));
  graph.forEachNode((ref) => {
    if (!wantedNodes.has(ref)) graph.dropNode(ref);
  });
  const known: Positions = new Map(remembered);
  graph.forEachNode((ref, a) => known.set(ref, { x: a.x, y: a.y }));
  const fresh = placeNew(
    props.nodes.map((n) => n.ref),
    props.edges,
    known,
  );
  for (const node of props.nodes) {
    const look = { label: node.title ?? node.ref, color: NODE };
    if (graph.hasNode(node.ref)) graph.mergeNodeAttributes(node.ref, look);
    else {
      const at = known.get(node.ref) ?? fresh.get(node.ref) ?? { x: 0, y: 0 };
      graph.addNode(node.ref, { ...look, x: at.x, y: at.y, size: NODE_SIZE });
    }
  }
  const wantedEdges = new Map(props.edges.map((e) => [edgeKey(e), e]));
  graph.forEachEdge((key) => {
    if (!wantedEdges.has(key)) graph.dropEdge(key);
  });
  for (const [key, edge] of wantedEdges) {
    if (graph.hasEdge(key)) continue;
    graph.addDirectedEdgeWithKey(key, edge.from, edge.to, {
      relation: edge.relation,
      color: relationColor(edge.relation, props.relations),
      size: 1.5,
    });
  }
  return fresh.size > 0;
}

export function GraphCanvas(props: GraphCanvasProps) {
  const container = useRef<HTMLDivElement>(null);
  const sigmaRef = useRef<Sigma<NodeAttributes, EdgeAttributes> | null>(null);
  const keyRef = useRef<string | null>(null);
  // Read by sigma's reducers and click handler, which outlive a render.
  const highlightRef = useRef<ReadonlySet<string>>(new Set());
  const selectedRef = useRef<string | null>(null);
  const clickRef = useRef<GraphCanvasProps["onNodeClick"]>(undefined);
  // Declared first, so the effects below (and sigma's next render) read this render's props.
  useEffect(() => {
    highlightRef.current = props.highlight ?? new Set();
    selectedRef.current = props.selected ?? null;
    clickRef.current = props.onNodeClick;
  }, [props.highlight, props.selected, props.onNodeClick]);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const graph: CanvasGraphology = new Graph<NodeAttributes, EdgeAttributes>({ multi: true, type: "directed" });
    const emphasised = (ref: string) => highlightRef.current.size === 0 || highlightRef.current.has(ref);
    const sigma = new Sigma<NodeAttributes, EdgeAttributes>(graph, element, {
      defaultEdgeType: "arrow",
      zIndex: true,
      // Big graphs stay fluid while panning: edges and labels come back when the camera stops.
      hideEdgesOnMove: true,
      hideLabelsOnMove: true,
      labelRenderedSizeThreshold: 4,
      nodeReducer: (ref, data) => {
        const selected = selectedRef.current === ref;
        if (selected) return { ...data, color: SELECTED, size: NODE_SIZE * 2, highlighted: true, zIndex: 2 };
        if (!emphasised(ref)) return { ...data, color: DIMMED, label: null, zIndex: 0 };
        return highlightRef.current.size ? { ...data, size: NODE_SIZE * 1.5, zIndex: 1 } : data;
      },
      edgeReducer: (key, data) => {
        const [from, to] = graph.extremities(key);
        return emphasised(from) && emphasised(to) ? data : { ...data, color: DIMMED, zIndex: 0 };
      },
    });
    sigma.on("clickNode", ({ node }) => clickRef.current?.(node));
    sigma.on("enterNode", () => (element.style.cursor = "pointer"));
    sigma.on("leaveNode", () => (element.style.cursor = ""));
    sigmaRef.current = sigma;
    window.__lorebaseCanvas = { sigma, graph };
    return () => {
      sigma.kill();
      sigmaRef.current = null;
      keyRef.current = null;
      if (window.__lorebaseCanvas?.sigma === sigma) delete window.__lorebaseCanvas;
    };
  }, []);

  const { nodes, edges, positionsKey, relations } = props;
  useEffect(() => {
    const sigma = sigmaRef.current;
    if (!sigma) return;
    const graph = sigma.getGraph();
    if (keyRef.current !== positionsKey) {
      // Another Revision: its own layout, not this one's.
      graph.clear();
      keyRef.current = positionsKey;
    }
    const remembered = rememberedPositions(positionsKey);
    if (syncGraph(graph, { nodes, edges, relations }, remembered)) {
      forceAtlas2.assign(graph, {
        iterations: layoutIterations(graph.order, graph.size),
        settings: { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: graph.order > 300 },
      });
    }
    const positions: Positions = new Map();
    graph.forEachNode((ref, a) => positions.set(ref, { x: a.x, y: a.y }));
    rememberPositions(positionsKey, positions);
    sigma.refresh();
  }, [nodes, edges, positionsKey, relations]);

  useEffect(() => {
    sigmaRef.current?.refresh({ skipIndexation: true });
  }, [props.highlight, props.selected]);

  return <div ref={container} className="canvas" role="img" aria-label={props.label} />;
}
