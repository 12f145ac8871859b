// Agent activity (agent-trace.md): the trace sessions that touched this Domain and, with
// ?session=<id> (&actor=<principal> for another principal's), the session's timeline with the
// Records its steps touched on the Canvas.
import { useMemo, useState } from "react";
import { Link, useSearchParams } from "react-router-dom";

import { useNeighborhood, useTraceSession, useTraceSessions } from "../api/queries";
import { useDomainRelations } from "../canvas/domainRelations";
import { LazyGraphCanvas } from "../canvas/LazyGraphCanvas";
import { drawnRelations, mergeGraphs, neighborhoodGraph } from "../canvas/graph";
import { Legend } from "../canvas/Legend";
import { ProblemView } from "../components/Problem";
import { RecordLink } from "../components/RecordLink";
import { useDomain } from "../components/schema";
import { useSession } from "../session";
import { Timeline } from "../trace/Timeline";
import { touchedGraph } from "../trace/timeline";

/** Touched Records without Links get their neighborhood read for context; at most this many. */
const CONTEXT_REFS = 50;
/** Touched Records listed as links beside the Canvas. */
const LISTED_REFS = 100;

function When(props: { at: string }) {
  const date = new Date(props.at);
  return <time dateTime={props.at}>{Number.isNaN(date.getTime()) ? props.at : date.toLocaleString()}</time>;
}

function sessionSearch(session: string, actor: string | null): string {
  const params = new URLSearchParams({ session });
  if (actor) params.set("actor", actor);
  return `?${params.toString()}`;
}

function SessionList() {
  const { domain } = useDomain();
  const me = useSession().whoami?.principal ?? null;
  // The cursors of the pages before this one, so "Newer" can go back.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const page = useTraceSessions(domain, cursor);
  if (page.problem) return <ProblemView problem={page.problem} />;
  if (!page.data) return <p className="loading">Loading the sessions…</p>;
  const { sessions, next_cursor } = page.data;
  return (
    <>
      <h2>Sessions</h2>
      {sessions.length === 0 ? (
        <p className="muted">
          No traced sessions in this Domain. Agents are traced when they send <code>X-Lorebase-Trace: on</code> or when
          tracing covers their principal or key.
        </p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Principal</th>
                <th scope="col">First step</th>
                <th scope="col">Last step</th>
                <th scope="col" className="num">
                  Calls
                </th>
                <th scope="col" className="num">
                  Notes
                </th>
                <th scope="col">Tools</th>
                <th scope="col">Proposals</th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr key={`${s.principal}\u0000${s.session_id}`}>
                  <td>
                    <Link to={sessionSearch(s.session_id, s.principal === me ? null : s.principal)}>
                      <code>{s.session_id}</code>
                    </Link>{" "}
                    {s.inferred ? (
                      <span className="badge warn" title="Grouped by Keeper: the requests named no session">
                        inferred
                      </span>
                    ) : null}
                  </td>
                  <td>{s.principal}</td>
                  <td>
                    <When at={s.first_at} />
                  </td>
                  <td>
                    <When at={s.last_at} />
                  </td>
                  <td className="num">{s.calls}</td>
                  <td className="num">{s.notes}</td>
                  <td>{s.tools.join(", ")}</td>
                  <td>
                    {s.proposals.map((p) => (
                      <Link key={p} to={`/${encodeURIComponent(domain)}/proposals/${encodeURIComponent(p)}`}>
                        {p}{" "}
                      </Link>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="pager">
        <button type="button" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer sessions
        </button>
        <button
          type="button"
          disabled={!next_cursor}
          onClick={() => next_cursor && setCursors((c) => [...c, next_cursor])}
        >
          Older sessions
        </button>
      </div>
    </>
  );
}

function SessionView(props: { session: string; actor: string | null }) {
  const { domain } = useDomain();
  const relations = useDomainRelations();
  const [selected, setSelected] = useState<number | null>(null);
  const read = useTraceSession(props.session, props.actor);
  const steps = read.data?.steps;
  const touched = useMemo(() => {
    const all = steps ?? [];
    return touchedGraph(selected === null ? all : all.filter((s) => s.step === selected), domain);
  }, [steps, selected, domain]);
  const touchedRefs = useMemo(() => new Set(touched.nodes.map((n) => n.ref)), [touched]);
  // Records without the Links between them say little: draw their neighborhood around them.
  const contextRefs = touched.edges.length === 0 ? touched.nodes.slice(0, CONTEXT_REFS).map((n) => n.ref) : [];
  const context = useNeighborhood(
    domain,
    contextRefs.length ? { refs: contextRefs, depth: 1, branch: null, at: null } : null,
  );
  const graph = useMemo(
    () => (context.data ? mergeGraphs(touched, neighborhoodGraph(context.data)) : touched),
    [touched, context.data],
  );

  if (read.problem) return <ProblemView problem={read.problem} />;
  if (!read.data) return <p className="loading">Loading the session…</p>;
  const answer = read.data;
  const calls = answer.steps.filter((s) => s.type === "call").length;
  return (
    <>
      <p>
        <Link to="?">All sessions</Link>
      </p>
      <h2>
        Session <code>{answer.session_id}</code>{" "}
        {answer.inferred ? (
          <span className="badge warn" title="Grouped by Keeper: the requests named no session">
            inferred
          </span>
        ) : null}
      </h2>
      <dl className="facts">
        <dt>Principal</dt>
        <dd>{answer.principal}</dd>
        <dt>First step</dt>
        <dd>
          <When at={answer.first_at} />
        </dd>
        <dt>Last step</dt>
        <dd>
          <When at={answer.last_at} />
        </dd>
        <dt>Steps</dt>
        <dd>
          {answer.steps.length} ({calls} calls, {answer.steps.length - calls} notes)
        </dd>
        <dt>Domains</dt>
        <dd>{answer.domains.map((d) => d.domain_id ?? "outside a Domain").join(", ")}</dd>
      </dl>
      <div className="columns">
        <div>
          <h2>Timeline</h2>
          {answer.steps.length === 0 ? (
            <p className="muted">No steps you may see.</p>
          ) : (
            <div className="table-wrap">
              <Timeline steps={answer.steps} domain={domain} selected={selected} onSelect={setSelected} />
            </div>
          )}
        </div>
        <div>
          <h2>Touched Records</h2>
          <p>
            {selected === null ? "All steps." : `Step ${selected}.`}{" "}
            {selected !== null ? (
              <button type="button" onClick={() => setSelected(null)}>
                Show all steps
              </button>
            ) : null}
          </p>
          {context.problem ? <ProblemView problem={context.problem} /> : null}
          {graph.nodes.length === 0 ? (
            <p className="muted">No Records of this Domain touched.</p>
          ) : (
            <>
              <LazyGraphCanvas
                nodes={graph.nodes}
                edges={graph.edges}
                highlight={touchedRefs}
                positionsKey={`${domain}@trace:${answer.principal}:${answer.session_id}`}
                relations={relations}
                label={`Canvas of the ${touchedRefs.size} Records touched, emphasised among ${graph.nodes.length}`}
              />
              <Legend drawn={drawnRelations(graph)} relations={relations} />
              <ul aria-label="Touched Records">
                {[...touchedRefs].slice(0, LISTED_REFS).map((ref) => (
                  <li key={ref}>
                    <RecordLink refText={ref} />
                  </li>
                ))}
              </ul>
              {touchedRefs.size > LISTED_REFS ? (
                <p className="muted">and {touchedRefs.size - LISTED_REFS} more.</p>
              ) : null}
            </>
          )}
        </div>
      </div>
    </>
  );
}

export function AgentActivity() {
  const [params] = useSearchParams();
  const session = params.get("session");
  return (
    <section>
      <h1>Agent activity</h1>
      <p className="lead">
        What traced agents did in this Domain: their calls, notes and the Records they touched. Tracing is opt-in and
        kept for a short time.
      </p>
      {session ? (
        <SessionView
          key={`${session}\u0000${params.get("actor") ?? ""}`}
          session={session}
          actor={params.get("actor")}
        />
      ) : (
        <SessionList />
      )}
    </section>
  );
}
