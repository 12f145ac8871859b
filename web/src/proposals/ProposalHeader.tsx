// The head of a Proposal: its title, description and intent (untrusted text an agent wrote:
// rendered as text only, never HTML or Markdown), status, source → target and task. The
// description lists the executions already (one line each), so they are not listed again.
import type { Schemas } from "../api/client";
import { shortTime } from "./format";
import { StatusBadge } from "./StatusBadge";

export function ProposalHeader(props: { proposal: Schemas["Proposal"] }) {
  const p = props.proposal;
  return (
    <header>
      <h1 className="plain">{p.title}</h1>
      {p.description && <p className="plain lead">{p.description}</p>}
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={p.status} />
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{p.id}</code>
        </dd>
        <dt>Branches</dt>
        <dd>
          <code>{p.source_ref}</code> → <code>{p.target_ref}</code>
        </dd>
        {p.task && (
          <>
            <dt>Task</dt>
            <dd className="plain">{p.task}</dd>
          </>
        )}
        {p.intent && (
          <>
            <dt>Intent</dt>
            <dd className="plain">{p.intent}</dd>
          </>
        )}
        <dt>Opened</dt>
        <dd>
          {p.created_by} · {shortTime(p.created_at)}
        </dd>
        <dt>Updated</dt>
        <dd>{shortTime(p.updated_at)}</dd>
        {p.closed_at && (
          <>
            <dt>Closed</dt>
            <dd>
              {p.closed_by} · {shortTime(p.closed_at)}
            </dd>
          </>
        )}
      </dl>
    </header>
  );
}
