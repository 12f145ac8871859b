// A trace session as the timeline shows it (agent-trace.md): steps and notes in order, the time
// between one step's end and the next step's start that Keeper did not spend (the agent thinking,
// the network, the model), latency bars scaled to the session's slowest call, and the Records and
// Links the steps touched, for the Canvas.
import type { Schemas } from "../api/client";
import { mergeGraphs, EMPTY_GRAPH, type CanvasGraph } from "../canvas/graph";

export type TraceStep = Schemas["TraceStepShape"];

/** Gaps shorter than this are the network and the client, not worth a row. */
export const GAP_THRESHOLD_MS = 1000;

export type TimelineRow =
  | { type: "step"; step: TraceStep; barPercent: number; withheld: boolean; cacheHit: boolean }
  | { type: "gap"; ms: number; after: number };

function startMs(step: TraceStep): number {
  return Date.parse(step.at);
}

function endMs(step: TraceStep): number {
  return startMs(step) + (step.latency_ms ?? 0);
}

/** The steps in timeline order (their step number; write order breaks ties). */
export function orderSteps(steps: readonly TraceStep[]): TraceStep[] {
  return [...steps].sort((a, b) => a.step - b.step || a.seq - b.seq);
}

/** The width of a call's latency bar, in percent of the slowest call (at least 1 when it took time). */
export function barPercent(latencyMs: number | null, slowestMs: number): number {
  if (!latencyMs || latencyMs <= 0 || slowestMs <= 0) return 0;
  return Math.max(1, Math.min(100, (latencyMs / slowestMs) * 100));
}

/** Time unaccounted between two consecutive steps: the next start minus the previous end. */
export function gapMs(previous: TraceStep, next: TraceStep): number {
  return Math.max(0, startMs(next) - endMs(previous));
}

export function timelineRows(steps: readonly TraceStep[], threshold = GAP_THRESHOLD_MS): TimelineRow[] {
  const ordered = orderSteps(steps);
  const slowest = Math.max(0, ...ordered.map((s) => s.latency_ms ?? 0));
  const rows: TimelineRow[] = [];
  ordered.forEach((step, i) => {
    const previous = ordered[i - 1];
    if (previous) {
      const ms = gapMs(previous, step);
      if (ms >= threshold) rows.push({ type: "gap", ms, after: previous.step });
    }
    rows.push({
      type: "step",
      step,
      barPercent: barPercent(step.latency_ms, slowest),
      withheld: step.withheld,
      cacheHit: step.cache === "hit" || step.cache === "not_modified",
    });
  });
  return rows;
}

/** "850 ms", "12 s", "3 min 4 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  if (minutes < 60) return rest ? `${minutes} min ${rest} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min`;
}

/** The counts of a step's result ("links 14 · neighbors 10"), or "" when it has none. */
export function countsText(step: TraceStep): string {
  const counts = step.result?.counts;
  if (typeof counts !== "object" || counts === null) return "";
  return Object.entries(counts as Record<string, unknown>)
    .filter(([, n]) => typeof n === "number")
    .map(([name, n]) => `${name} ${String(n)}`)
    .join(" · ");
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/**
 * The Records (`{kind, key}`) and Links (`{relation, from, to}`) the steps touched, as a Canvas
 * graph; only steps in `domain`, since another Domain's refs are not Records of this one.
 */
export function touchedGraph(steps: readonly TraceStep[], domain: string): CanvasGraph {
  let graph = EMPTY_GRAPH;
  for (const step of steps) {
    if (step.domain_id !== domain || !step.refs) continue;
    const nodes: CanvasGraph["nodes"] = [];
    const edges: CanvasGraph["edges"] = [];
    for (const ref of step.refs) {
      const kind = text(ref.kind);
      const key = text(ref.key);
      const relation = text(ref.relation);
      const from = text(ref.from);
      const to = text(ref.to);
      if (kind && key) nodes.push({ ref: `${kind}/${key}`, kind, title: null });
      else if (relation && from && to) edges.push({ relation, from, to });
    }
    graph = mergeGraphs(graph, { nodes, edges });
  }
  return graph;
}
