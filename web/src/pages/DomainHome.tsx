// A Domain's overview: its Kinds with their counts, the health summary and the recent changes.
import { Link } from "react-router-dom";

import { useBranchChanges, useHealth } from "../api/queries";
import { ProblemView } from "../components/Problem";
import { ReadPointPicker } from "../components/ReadPointPicker";
import { pointSearch, useReadPoint } from "../components/readPoint";
import { useDomain } from "../components/schema";

export function DomainHome() {
  const { domain, schema } = useDomain();
  const point = useReadPoint();
  const health = useHealth(domain, point);
  const changes = useBranchChanges(domain, point.branch ?? schema.branch);
  const counts = new Map((health.data?.kinds ?? []).map((k) => [k.kind, k.records]));
  const summary = health.data?.summary;
  const recent = [...(changes.data?.events ?? [])].reverse().slice(0, 10);
  return (
    <section>
      <h1>{String(schema.title ?? domain)}</h1>
      {schema.description ? <p className="lead">{String(schema.description)}</p> : null}
      <ReadPointPicker />
      <div className="columns">
        <div>
          <h2>Kinds</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Kind</th>
                <th scope="col">Records</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {schema.kinds.map((k) => (
                <tr key={k.name}>
                  <td>
                    <Link to={`kinds/${encodeURIComponent(k.name)}${pointSearch(point)}`}>{k.name}</Link>
                  </td>
                  <td className="num">{counts.get(k.name) ?? "…"}</td>
                  <td>{k.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div>
          <h2>Health</h2>
          {health.problem && <ProblemView problem={health.problem} />}
          {summary && (
            <dl className="facts">
              <dt>Status</dt>
              <dd className={summary.ok ? "ok" : "bad"}>{summary.ok ? "healthy" : "has problems"}</dd>
              <dt>Records</dt>
              <dd>{summary.records}</dd>
              <dt>Links</dt>
              <dd>{summary.links}</dd>
              <dt>Invalid Records</dt>
              <dd>{summary.invalid_records}</dd>
              <dt>Orphan Links</dt>
              <dd>{summary.orphan_links}</dd>
              <dt>Required gaps</dt>
              <dd>{summary.required_gaps}</dd>
              <dt>Duplicate groups</dt>
              <dd>{summary.duplicate_groups}</dd>
            </dl>
          )}
          <h2>Recent changes</h2>
          {changes.problem && <ProblemView problem={changes.problem} />}
          <ol className="changes">
            {recent.map((e) => (
              <li key={e.sequence}>
                <Link to={pointSearch({ branch: point.branch, at: e.revision })}>
                  <code>{e.revision.slice(0, 12)}</code>
                </Link>{" "}
                <span>{e.message}</span>{" "}
                <span className="muted">
                  {e.author} · {e.created_at}
                </span>
              </li>
            ))}
          </ol>
        </div>
      </div>
    </section>
  );
}
