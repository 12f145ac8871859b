// The Canvas loaded on first use: sigma, graphology and forceatlas2 stay out of the app's first
// bundle, which every other screen pays for.
import { lazy, Suspense } from "react";

import type { GraphCanvasProps } from "./GraphCanvas";

const GraphCanvas = lazy(() => import("./GraphCanvas").then((m) => ({ default: m.GraphCanvas })));

export function LazyGraphCanvas(props: GraphCanvasProps) {
  return (
    <Suspense fallback={<div className="canvas loading">Loading the Canvas…</div>}>
      <GraphCanvas {...props} />
    </Suspense>
  );
}
