// The sections of a Record page: its Links by Relation, its history with before and after, and
// explain (where the Record and each value came from). Each reads at the page's read point.
import { useState } from "react";
import { Link } from "react-router-dom";

import type { Schemas } from "../api/client";
import { useRecordExplain, useRecordHistory, useRelationLinks } from "../api/queries";
import { ProblemView } from "../components/Problem";
import { pointSearch, useReadPoint } from "../components/readPoint";
import { RecordLink } from "../components/RecordLink";
import { useDomain } from "../components/schema";
import { BeforeAfterTable, ValueText } from "./values";

interface Target {
  kind: string;
  /** The Record's key (`key` is React's own prop name). */
  recordKey: string;
}

export function LinksSection(props: Target & { counts: Record<string, number> }) {
  const names = Object.keys(props.counts).sort();
  if (names.length === 0) return <p>This Record has no Links.</p>;
  return (
    <div>
      {names.map((relation) => (
        <RelationLinks
          key={relation}
          kind={props.kind}
          recordKey={props.recordKey}
          relation={relation}
          count={props.counts[relation] ?? 0}
        />
      ))}
    </div>
  );
}

function RelationLinks(props: Target & { relation: string; count: number }) {
  const { domain } = useDomain();
  const point = useReadPoint();
  const [open, setOpen] = useState(props.count <= 10);
  const read = useRelationLinks(
    domain,
    { kind: props.kind, key: props.recordKey, relation: props.relation },
    point,
    open,
  );
  const self = `${props.kind}/${props.recordKey}`;
  return (
    <section aria-label={`Relation ${props.relation}`}>
      <h3>
        {props.relation} <span className="muted">({props.count})</span>{" "}
        {!open && (
          <button type="button" onClick={() => setOpen(true)}>
            Show
          </button>
        )}
      </h3>
      {read.problem && <ProblemView problem={read.problem} />}
      {read.data && (
        <ul>
          {read.data.links.map((link) => {
            const other = link.from === self ? link.to : link.from;
            const extra = Object.entries(link.values ?? {});
            return (
              <li key={`${link.from}>${link.to}`}>
                <RecordLink refText={other} search={pointSearch(point)} />
                {extra.length > 0 && (
                  <span className="muted">
                    {" "}
                    {extra.map(([name, value]) => (
                      <span key={name}>
                        {name}: <ValueText value={value} />{" "}
                      </span>
                    ))}
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {read.data?.next_cursor && <p className="muted">First 100 shown.</p>}
    </section>
  );
}

type Change = Schemas["HistoryPage"]["changes"][number];

export function HistorySection(props: Target) {
  const { domain } = useDomain();
  const point = useReadPoint();
  const read = useRecordHistory(domain, props.kind, props.recordKey, point);
  if (read.problem) return <ProblemView problem={read.problem} />;
  if (!read.data) return <p className="loading">Loading the history…</p>;
  return (
    <ol className="history">
      {read.data.changes.map((change) => (
        <li key={change.revision}>
          <ChangeView change={change} />
        </li>
      ))}
    </ol>
  );
}

function ChangeView(props: { change: Change }) {
  const { change } = props;
  const point = useReadPoint();
  const before = (change.before ?? {}) as Record<string, unknown>;
  const after = (change.after ?? {}) as Record<string, unknown>;
  const names = change.attributes?.length ? change.attributes : Object.keys({ ...before, ...after });
  return (
    <div>
      <p>
        <strong>{change.change}</strong>{" "}
        <Link to={pointSearch({ branch: point.branch, at: change.revision })}>
          <code>{change.revision.slice(0, 12)}</code>
        </Link>{" "}
        <span className="plain">{change.message}</span>{" "}
        <span className="muted">
          {change.author} · {change.at}
        </span>
      </p>
      {names.length > 0 && (change.before || change.after) && (
        <BeforeAfterTable
          label={`Change ${change.revision.slice(0, 12)}`}
          rows={names.map((name) => ({ attribute: name, before: before[name], after: after[name] }))}
        />
      )}
    </div>
  );
}

export function ExplainSection(props: Target) {
  const { domain } = useDomain();
  const point = useReadPoint();
  const read = useRecordExplain(domain, props.kind, props.recordKey, point);
  if (read.problem) return <ProblemView problem={read.problem} />;
  if (!read.data) return <p className="loading">Loading explain…</p>;
  const explain = read.data;
  return (
    <div>
      <p>
        Created in <code>{explain.created.revision.slice(0, 12)}</code> by {explain.created.author} on{" "}
        {explain.created.at}: <span className="plain">{explain.created.message}</span> ({explain.created.origin.type}{" "}
        {explain.created.origin.ref}). {explain.changes} change{explain.changes === 1 ? "" : "s"} since.
      </p>
      <table aria-label="Where each value came from">
        <thead>
          <tr>
            <th scope="col">Attribute</th>
            <th scope="col">Value</th>
            <th scope="col">Set by</th>
            <th scope="col">How</th>
          </tr>
        </thead>
        <tbody>
          {explain.attributes.map((a) => (
            <tr key={a.name}>
              <td>{a.name}</td>
              <td>
                <ValueText value={a.value} />
              </td>
              <td>
                {a.actor} · {a.at}
              </td>
              <td>
                {a.origin ? `${a.origin.type} ${a.origin.ref ?? ""}: ` : ""}
                <span className="plain">{a.message}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {explain.proposals.length > 0 && (
        <>
          <h3>Proposals</h3>
          <ul>
            {explain.proposals.map((p) => (
              <li key={p.id}>
                <Link to={`/${encodeURIComponent(domain)}/proposals/${encodeURIComponent(p.id)}`}>{p.id}</Link>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
