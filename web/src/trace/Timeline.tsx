// A session's timeline: calls and notes in order, with gap rows for unaccounted time. Notes are
// model output: shown as plain text only, never as HTML, Markdown or links.
import { Link } from "react-router-dom";

import { countsText, formatDuration, timelineRows, type TraceStep } from "./timeline";

export interface TimelineProps {
  steps: readonly TraceStep[];
  domain: string;
  /** The selected call's step number; null: all steps. */
  selected: number | null;
  onSelect(step: number | null): void;
}

function callName(step: TraceStep): string {
  const route = [step.method, step.route].filter(Boolean).join(" ");
  return step.tool ? `${step.tool} · ${route}` : route || "call";
}

function LatencyBar(props: { percent: number }) {
  return (
    <div
      aria-hidden="true"
      style={{ background: "var(--panel)", height: 8, borderRadius: 4, minWidth: 80, marginTop: 4 }}
    >
      <div style={{ width: `${props.percent}%`, height: 8, borderRadius: 4, background: "var(--accent)" }} />
    </div>
  );
}

export function Timeline(props: TimelineProps) {
  const rows = timelineRows(props.steps);
  return (
    <table aria-label="Timeline" className="timeline">
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">Call or note</th>
          <th scope="col">Status</th>
          <th scope="col">Latency</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          if (row.type === "gap")
            return (
              <tr key={`gap-${row.after}`} className="muted">
                <td />
                <td colSpan={3}>
                  <em>{formatDuration(row.ms)} unaccounted</em>
                </td>
              </tr>
            );
          const { step } = row;
          if (step.type === "note")
            return (
              <tr key={`note-${step.step}`}>
                <td className="num">{step.step}</td>
                <td colSpan={3}>
                  <span className="badge">note</span>
                  {step.note_step ? <span className="muted"> about step {step.note_step}</span> : null}
                  {row.withheld ? <span className="badge warn">withheld</span> : null}
                  {step.note !== null ? (
                    <p className="plain">{step.note}</p>
                  ) : (
                    <p className="muted">The note's text is withheld: another principal wrote it.</p>
                  )}
                </td>
              </tr>
            );
          const selected = props.selected === step.step;
          return (
            <tr key={`call-${step.step}`} aria-current={selected ? "step" : undefined}>
              <td className="num">{step.step}</td>
              <td>
                <button
                  type="button"
                  aria-pressed={selected}
                  onClick={() => props.onSelect(selected ? null : step.step)}
                >
                  {callName(step)}
                </button>{" "}
                {row.cacheHit ? <span className="badge">cache {step.cache}</span> : null}
                <div className="counts">{countsText(step)}</div>
                {row.withheld ? (
                  <span className="badge warn" title="What another principal typed is left out for you">
                    withheld
                  </span>
                ) : null}
                {step.domain_id !== props.domain ? (
                  <span className="muted"> {step.domain_id ? `in ${step.domain_id}` : "outside a Domain"}</span>
                ) : null}
                {step.proposal_id ? (
                  <div>
                    <Link
                      to={`/${encodeURIComponent(step.domain_id ?? props.domain)}/proposals/${encodeURIComponent(step.proposal_id)}`}
                    >
                      Proposal {step.proposal_id}
                    </Link>
                  </div>
                ) : null}
              </td>
              <td className={step.status !== null && step.status >= 400 ? "bad" : undefined}>{step.status ?? ""}</td>
              <td>
                {step.latency_ms !== null ? formatDuration(step.latency_ms) : ""}
                <LatencyBar percent={row.barPercent} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
