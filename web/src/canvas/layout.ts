// Placing nodes: a new node starts next to a node it links to (the one it was expanded from), so
// an expansion grows where the reader clicked; then a bounded forceatlas2 run tidies up.
import type { CanvasEdge } from "./graph";
import type { Point, Positions } from "./positions";

function angleOf(ref: string): number {
  let h = 0;
  for (let i = 0; i < ref.length; i++) h = (h * 31 + ref.charCodeAt(i)) >>> 0;
  return ((h % 3600) / 3600) * 2 * Math.PI;
}

/**
 * Positions for `refs` that `known` lacks: near a placed neighbor when one exists (deterministic,
 * by the ref), else on a ring around the origin. Returns only the new positions.
 */
export function placeNew(refs: readonly string[], edges: readonly CanvasEdge[], known: Positions): Positions {
  const neighbors = new Map<string, string[]>();
  const link = (a: string, b: string) => {
    const list = neighbors.get(a);
    if (list) list.push(b);
    else neighbors.set(a, [b]);
  };
  for (const e of edges) {
    link(e.from, e.to);
    link(e.to, e.from);
  }
  const placed = new Map<string, Point>();
  const at = (ref: string) => known.get(ref) ?? placed.get(ref);
  const waiting = refs.filter((r) => !known.has(r));
  // Nodes next to placed ones go first, so a chain of new nodes still grows from its anchor.
  for (let pass = 0; pass < 2; pass++) {
    for (const ref of waiting) {
      if (placed.has(ref)) continue;
      const anchor = (neighbors.get(ref) ?? []).map(at).find((p) => p !== undefined);
      if (anchor === undefined && pass === 0) continue;
      const angle = angleOf(ref);
      const centre = anchor ?? { x: 0, y: 0 };
      const radius = anchor ? 1 : 10;
      placed.set(ref, { x: centre.x + radius * Math.cos(angle), y: centre.y + radius * Math.sin(angle) });
    }
  }
  return placed;
}

/**
 * forceatlas2 iterations for a graph of this size: about the same work whatever the size (an
 * iteration costs some 30 ms at 2,000 nodes and 3,000 edges), so an expansion stays interactive;
 * new nodes already start beside their anchor, so a few iterations are enough to tidy up.
 */
export function layoutIterations(nodes: number, edges: number): number {
  const size = nodes + edges;
  if (size === 0) return 0;
  return Math.max(3, Math.min(100, Math.round(15000 / size)));
}
