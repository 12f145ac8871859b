// The Canvas (docs/web.md): /:domain/canvas?ref=Kind/Key (repeatable) &depth=1 &highlight=ref.
// Draws the seeds' neighborhood at the read point; selecting a Record (a click, or the list for
// the keyboard) shows it beside the Canvas, and Expand merges its own neighborhood in, read at
// the same Revision so the picture stays one point in time.
import { useCallback, useMemo, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router-dom";

import { asProblem, type ApiProblem } from "../api/client";
import { useFetchNeighborhood, useNeighborhood } from "../api/queries";
import { useDomainRelations } from "../canvas/domainRelations";
import { LazyGraphCanvas } from "../canvas/LazyGraphCanvas";
import { drawnRelations, EMPTY_GRAPH, mergeGraphs, neighborhoodGraph, type CanvasGraph } from "../canvas/graph";
import { Legend } from "../canvas/Legend";
import { capsNote } from "../canvas/neighborhood";
import { ProblemView } from "../components/Problem";
import { ReadPointPicker } from "../components/ReadPointPicker";
import { pointSearch, useReadPoint } from "../components/readPoint";
import { linkableRef, parseRef, recordPath } from "../components/refs";
import { useDomain } from "../components/schema";

function depthOf(text: string | null): number {
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 && n <= 3 ? n : 1;
}

function AddSeed(props: { onAdd(ref: string): void }) {
  const [text, setText] = useState("");
  const [error, setError] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const ref = text.trim();
    if (!parseRef(ref)) {
      setError("Write a Record as Kind/Key, for example Supplier/S-1001.");
      return;
    }
    setError("");
    setText("");
    props.onAdd(ref);
  };
  return (
    <form className="filters" onSubmit={submit}>
      <label>
        Add a Record (Kind/Key)
        <input value={text} onChange={(e) => setText(e.target.value)} placeholder="Supplier/S-1001" />
      </label>
      <button type="submit">Add to the Canvas</button>
      {error ? (
        <span role="alert" className="bad">
          {error}
        </span>
      ) : null}
    </form>
  );
}

interface Expansion {
  graph: CanvasGraph;
  caps: string[];
}

export function CanvasPage() {
  const { domain, kinds } = useDomain();
  const relations = useDomainRelations();
  const point = useReadPoint();
  const [params, setParams] = useSearchParams();
  const seeds = params.getAll("ref").filter((r) => r !== "");
  const depth = depthOf(params.get("depth"));
  const highlightKey = params.getAll("highlight").join("\n");
  const highlight = useMemo(() => new Set(highlightKey ? highlightKey.split("\n") : []), [highlightKey]);

  const seedRead = useNeighborhood(
    domain,
    seeds.length ? { refs: seeds, depth, branch: point.branch, at: point.at } : null,
  );
  const fetchNeighborhood = useFetchNeighborhood(domain);
  const answer = seedRead.data;
  // Expansions belong to one seed answer: a new answer (other seeds, another point) starts over.
  const [expansion, setExpansion] = useState<{ of: typeof answer; value: Expansion }>({
    of: null,
    value: { graph: EMPTY_GRAPH, caps: [] },
  });
  const expanded = expansion.of === answer ? expansion.value : { graph: EMPTY_GRAPH, caps: [] };
  const [selected, setSelected] = useState<string | null>(null);
  const [expanding, setExpanding] = useState<string | null>(null);
  const [expandProblem, setExpandProblem] = useState<ApiProblem | null>(null);

  const graph = useMemo(
    () => (answer ? mergeGraphs(neighborhoodGraph(answer), expanded.graph) : EMPTY_GRAPH),
    [answer, expanded.graph],
  );
  const caps = [...(answer?.capped ? answer.caps : []), ...expanded.caps];
  const selectedNode = graph.nodes.find((n) => n.ref === selected) ?? null;
  const sortedNodes = useMemo(
    () => [...graph.nodes].sort((a, b) => (a.title ?? a.ref).localeCompare(b.title ?? b.ref)),
    [graph.nodes],
  );

  const expand = useCallback(
    async (ref: string) => {
      if (!answer) return;
      setExpanding(ref);
      setExpandProblem(null);
      try {
        const more = await fetchNeighborhood({
          refs: [ref],
          depth: 1,
          branch: point.branch,
          at: answer.revision ?? point.at,
        });
        setExpansion((old) => {
          const base = old.of === answer ? old.value : { graph: EMPTY_GRAPH, caps: [] };
          return {
            of: answer,
            value: {
              graph: mergeGraphs(base.graph, neighborhoodGraph(more)),
              caps: more.capped ? [...base.caps, ...more.caps] : base.caps,
            },
          };
        });
      } catch (error) {
        setExpandProblem(asProblem(error));
      } finally {
        setExpanding(null);
      }
    },
    [fetchNeighborhood, answer, point.branch, point.at],
  );

  const addSeed = (ref: string) => {
    const next = new URLSearchParams(params);
    if (!next.getAll("ref").includes(ref)) next.append("ref", ref);
    setParams(next);
  };

  const selectedLink = selectedNode ? linkableRef(selectedNode.ref, kinds) : null;
  return (
    <section>
      <h1>Canvas</h1>
      <ReadPointPicker />
      <AddSeed onAdd={addSeed} />
      {seeds.length === 0 ? (
        <p className="muted">
          No Record on the Canvas yet. Open a Record and choose “Open on the Canvas”, or add one above.
        </p>
      ) : null}
      {seedRead.problem ? <ProblemView problem={seedRead.problem} /> : null}
      {seeds.length > 0 && seedRead.loading && !answer ? <p className="loading">Reading the neighborhood…</p> : null}
      {answer ? (
        <div className="columns">
          <div>
            <LazyGraphCanvas
              nodes={graph.nodes}
              edges={graph.edges}
              highlight={highlight}
              selected={selected}
              onNodeClick={setSelected}
              positionsKey={`${domain}@${answer.revision ?? answer.branch}`}
              relations={relations}
              label={`Canvas of ${graph.nodes.length} Records and ${graph.edges.length} Links; the list beside it holds the same Records`}
            />
            <Legend drawn={drawnRelations(graph)} relations={relations} />
            {caps.length ? (
              <p role="note" className="badge warn">
                {capsNote(caps)}
              </p>
            ) : null}
            {answer.missing.length ? (
              <p role="note" className="muted">
                Not found, or not visible to you: {answer.missing.join(", ")}
              </p>
            ) : null}
          </div>
          <div>
            <p className="muted">
              {graph.nodes.length} Records, {graph.edges.length} Links at{" "}
              <code>{(answer.revision ?? "").slice(0, 12)}</code>
            </p>
            <label>
              Records on the Canvas
              <select
                value={selected ?? ""}
                onChange={(e) => setSelected(e.target.value || null)}
                style={{ display: "block", width: "100%" }}
              >
                <option value="">Choose a Record…</option>
                {sortedNodes.map((n) => (
                  <option key={n.ref} value={n.ref}>
                    {n.title ? `${n.title} (${n.ref})` : n.ref}
                  </option>
                ))}
              </select>
            </label>
            {selectedNode ? (
              <div aria-label="Selected Record" role="region">
                <h2>{selectedNode.title ?? selectedNode.ref}</h2>
                <dl className="facts">
                  <dt>Ref</dt>
                  <dd>
                    <code>{selectedNode.ref}</code>
                  </dd>
                  <dt>Kind</dt>
                  <dd>{selectedNode.kind}</dd>
                </dl>
                <p>
                  {selectedLink ? (
                    <Link to={`${recordPath(domain, selectedLink)}${pointSearch(point)}`}>Open the Record</Link>
                  ) : null}{" "}
                  <button
                    type="button"
                    className="primary"
                    disabled={expanding !== null}
                    onClick={() => void expand(selectedNode.ref)}
                  >
                    {expanding === selectedNode.ref ? "Expanding…" : "Expand"}
                  </button>
                </p>
              </div>
            ) : (
              <p className="muted">
                Click a Record on the Canvas, or choose one in the list, to see it here and expand it.
              </p>
            )}
            {expandProblem ? <ProblemView problem={expandProblem} /> : null}
          </div>
        </div>
      ) : null}
    </section>
  );
}
