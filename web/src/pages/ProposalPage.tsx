// One Proposal: what it is (title, description, branches, task), whether and why it can merge,
// its Conflicts, its reviews and its diff. Every write reads the Proposal again afterwards, so the
// screen shows Keeper's state rather than a guess of it.
import { Link, useParams } from "react-router-dom";

import { data, type Schemas } from "../api/client";
import { useRead } from "../api/useRead";
import { ProblemView } from "../components/Problem";
import { useDomain } from "../components/schema";
import { Conflicts } from "../proposals/Conflicts";
import { DiffView } from "../proposals/DiffView";
import { MergePanel } from "../proposals/MergePanel";
import { ProposalHeader } from "../proposals/ProposalHeader";
import { loadProposalDiff } from "../proposals/proposalDiff";
import { Reviews } from "../proposals/Reviews";
import { useApi } from "../session";

export function ProposalPage() {
  const api = useApi();
  const { domain } = useDomain();
  const { proposal: id = "" } = useParams();
  const read = useRead(
    () =>
      data(api.GET("/api/v1/domains/{domain}/proposals/{proposal}", { params: { path: { domain, proposal: id } } })),
    [api, domain, id],
  );
  const proposal = read.data;
  const back = (
    <p>
      <Link to={`/${encodeURIComponent(domain)}/proposals`}>All Proposals</Link>
    </p>
  );
  if (!proposal) {
    return (
      <section>
        {back}
        {read.problem ? <ProblemView problem={read.problem} /> : <p className="loading">Loading the Proposal…</p>}
      </section>
    );
  }
  return (
    <section>
      {back}
      <ProposalView proposal={proposal} reload={read.reload} />
    </section>
  );
}

function ProposalView(props: { proposal: Schemas["Proposal"]; reload(): void }) {
  const { proposal, reload } = props;
  const api = useApi();
  const diff = useRead(
    () => loadProposalDiff(api, proposal.domain, proposal),
    [api, proposal.domain, proposal.id, proposal.status, proposal.updated_at],
  );
  const showConflicts = proposal.conflicts.open + proposal.conflicts.resolved > 0;
  return (
    <>
      <ProposalHeader proposal={proposal} />
      <div className="columns">
        <div>
          {showConflicts && <Conflicts proposal={proposal} onResolved={reload} />}
          <DiffView proposal={proposal} diff={diff} />
        </div>
        <div>
          <MergePanel
            proposal={proposal}
            sourceHead={proposal.status === "open" && diff.data ? diff.data.to : null}
            onChanged={reload}
          />
          <Reviews proposal={proposal} onReviewed={reload} />
        </div>
      </div>
    </>
  );
}
