// One Record at the read point: its values (masked ones marked, each with where it came from),
// its Links by Relation, its history and explain; the pickers travel in time and across branches.
import { useState } from "react";
import { Link, useParams } from "react-router-dom";

import { useRecord } from "../api/queries";
import { ProblemView } from "../components/Problem";
import { ReadPointPicker } from "../components/ReadPointPicker";
import { pointSearch, useReadPoint } from "../components/readPoint";
import { useDomain } from "../components/schema";
import { ExplainSection, HistorySection, LinksSection } from "../records/RecordSections";
import { ValueText } from "../records/values";

const TABS = ["Values", "Links", "History", "Explain"] as const;
type Tab = (typeof TABS)[number];

type Lineage = Record<
  string,
  {
    revision: string;
    actor?: string;
    at?: string;
    message?: string;
    origin?: { type: string; ref?: string | null } | null;
  }
>;

export function RecordPage() {
  const { domain, kind: kindOf } = useDomain();
  const { kind = "", key = "" } = useParams();
  const point = useReadPoint();
  const [tab, setTab] = useState<Tab>("Values");
  const read = useRecord(domain, kind, key, point);
  const schema = kindOf(kind);
  const canvas = `/${encodeURIComponent(domain)}/canvas${pointSearch(point, { ref: `${kind}/${key}` })}`;
  return (
    <section>
      <p className="muted">
        <Link to={`/${encodeURIComponent(domain)}/kinds/${encodeURIComponent(kind)}${pointSearch(point)}`}>{kind}</Link>{" "}
        / <span className="plain">{key}</span>
      </p>
      <ReadPointPicker />
      {read.problem && <ProblemView problem={read.problem} />}
      {read.data && (
        <>
          <h1>
            <ValueText value={read.data.title ?? read.data.key} />
          </h1>
          <p>
            <Link to={canvas}>Open on the Canvas</Link>{" "}
            <span className="muted">
              · last changed in <code>{read.data.updated_revision.slice(0, 12)}</code>
            </span>
          </p>
          <div className="tabs" role="tablist" aria-label="Record sections">
            {TABS.map((name) => (
              <button
                key={name}
                type="button"
                role="tab"
                id={`tab-${name}`}
                aria-selected={tab === name}
                aria-controls={`panel-${name}`}
                onClick={() => setTab(name)}
                onKeyDown={(e) => {
                  const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
                  if (step) {
                    const next = TABS[(TABS.indexOf(name) + step + TABS.length) % TABS.length]!;
                    setTab(next);
                    document.getElementById(`tab-${next}`)?.focus();
                  }
                }}
                tabIndex={tab === name ? 0 : -1}
              >
                {name}
              </button>
            ))}
          </div>
          <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
            {tab === "Values" && (
              <ValuesTable
                values={read.data.values}
                lineage={read.data.lineage ?? {}}
                order={schema?.attributes.map((a) => a.name) ?? []}
              />
            )}
            {tab === "Links" && <LinksSection kind={kind} recordKey={key} counts={read.data.links ?? {}} />}
            {tab === "History" && <HistorySection kind={kind} recordKey={key} />}
            {tab === "Explain" && <ExplainSection kind={kind} recordKey={key} />}
          </div>
        </>
      )}
    </section>
  );
}

function ValuesTable(props: { values: Record<string, unknown>; lineage: Lineage; order: string[] }) {
  const point = useReadPoint();
  const names = [
    ...props.order.filter((n) => n in props.values),
    ...Object.keys(props.values).filter((n) => !props.order.includes(n)),
  ];
  return (
    <table aria-label="Values">
      <thead>
        <tr>
          <th scope="col">Attribute</th>
          <th scope="col">Value</th>
          <th scope="col">Came from</th>
        </tr>
      </thead>
      <tbody>
        {names.map((name) => {
          const from = props.lineage[name];
          return (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>
                <ValueText value={props.values[name]} />
              </td>
              <td>
                {from && (
                  <>
                    <Link to={pointSearch({ branch: point.branch, at: from.revision })}>
                      <code>{from.revision.slice(0, 12)}</code>
                    </Link>{" "}
                    <span className="muted">
                      {from.origin ? `${from.origin.type} ${from.origin.ref ?? ""}` : ""}{" "}
                      {from.actor ? `by ${from.actor}` : ""} {from.at ?? ""}
                    </span>{" "}
                    {from.message && <span className="plain">{from.message}</span>}
                  </>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
