// The Conflicts of a Proposal's last merge attempt: each one's Record and Attribute, its base,
// source and target values, and, while open, its resolution (the source's value, the target's, or
// one typed here; whole-Record and Link Conflicts take source or target only). Its author or a
// caller with proposal.merge resolves; Keeper then attempts the merge again, so the Proposal is
// read again after each resolution.
import { useState } from "react";
import { Link } from "react-router-dom";

import type { Schemas } from "../api/client";
import { useProposalConflicts, useResolveConflict } from "../api/queries";
import { ProblemView } from "../components/Problem";
import { linkableRef, recordPath } from "../components/refs";
import { useDomain } from "../components/schema";
import { useSession } from "../session";
import { ValueText } from "../records/values";
import { hasPermission } from "./grants";

type Conflict = Schemas["ConflictEntry"];
type Resolution = Schemas["ResolveRequest"]["resolution"];

function ConflictItem(props: { proposal: Schemas["Proposal"]; conflict: Conflict; mayResolve: boolean }) {
  const { proposal, conflict } = props;
  const { domain, kinds } = useDomain();
  const write = useResolveConflict(proposal);
  const [value, setValue] = useState("");
  const ref = conflict.entity === "record" ? linkableRef(conflict.ref, kinds) : null;
  const label = conflict.attribute ? `${conflict.ref} ${conflict.attribute}` : conflict.ref;

  function resolve(resolution: Resolution) {
    write.mutate({ conflict: conflict.id, body: resolution === "value" ? { resolution, value } : { resolution } });
  }

  return (
    <li>
      <h3>
        {ref ? (
          <Link to={recordPath(domain, ref)}>
            <code>{conflict.ref}</code>
          </Link>
        ) : (
          <code className="plain">{conflict.ref}</code>
        )}
        {conflict.attribute && (
          <>
            {" "}
            · <code className="plain">{conflict.attribute}</code>
          </>
        )}{" "}
        <span className={conflict.status === "open" ? "badge warn" : "badge"}>{conflict.status}</span>
      </h3>
      <dl className="facts">
        <dt>Kind of Conflict</dt>
        <dd>{conflict.code}</dd>
        <dt>Base</dt>
        <dd>
          <ValueText value={conflict.base} />
        </dd>
        <dt>Source</dt>
        <dd>
          <ValueText value={conflict.source} />
        </dd>
        <dt>Target</dt>
        <dd>
          <ValueText value={conflict.target} />
        </dd>
        {conflict.status === "resolved" && (
          <>
            <dt>Resolved</dt>
            <dd className="plain">
              {conflict.resolution}
              {conflict.resolution === "value" && (
                <>
                  : <ValueText value={conflict.value} />
                </>
              )}{" "}
              by {conflict.resolved_by}
            </dd>
          </>
        )}
      </dl>
      {conflict.status === "open" && props.mayResolve && (
        <div className="filters" role="group" aria-label={`Resolve ${label}`}>
          <button type="button" disabled={write.isPending} onClick={() => resolve("source")}>
            Use source
          </button>
          <button type="button" disabled={write.isPending} onClick={() => resolve("target")}>
            Use target
          </button>
          {conflict.entity === "record" && conflict.attribute && (
            <>
              <label>
                Value for {conflict.attribute}
                <input value={value} onChange={(e) => setValue(e.target.value)} />
              </label>
              <button type="button" disabled={write.isPending} onClick={() => resolve("value")}>
                Use this value
              </button>
            </>
          )}
        </div>
      )}
      {write.error && <ProblemView problem={write.error} />}
    </li>
  );
}

export function Conflicts(props: { proposal: Schemas["Proposal"] }) {
  const { proposal } = props;
  const { whoami } = useSession();
  const read = useProposalConflicts(proposal);
  const mayResolve =
    proposal.status === "open" &&
    (whoami?.principal === proposal.created_by ||
      hasPermission(whoami, proposal.domain, proposal.target_ref, "proposal.merge"));
  const conflicts = read.data?.conflicts ?? [];
  return (
    <section aria-labelledby="conflicts-heading">
      <h2 id="conflicts-heading">Conflicts</h2>
      {read.problem && <ProblemView problem={read.problem} />}
      {read.data && conflicts.length === 0 && <p className="muted">No Conflicts with the target.</p>}
      {conflicts.length > 0 && !mayResolve && proposal.status === "open" && (
        <p className="muted">
          Only the Proposal's author or someone with proposal.merge on {proposal.target_ref} resolves Conflicts.
        </p>
      )}
      <ul className="cards">
        {conflicts.map((c) => (
          <ConflictItem key={c.id} proposal={proposal} conflict={c} mayResolve={mayResolve} />
        ))}
      </ul>
    </section>
  );
}
