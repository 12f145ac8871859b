// One Proposal: what it is (title, description, branches, task), whether and why it can merge,
// its Conflicts, its reviews and its diff. Every write reads the Proposal again afterwards, so the
// screen shows Keeper's state rather than a guess of it.
import { Link, useParams } from "react-router-dom";

import type { Schemas } from "../api/client";
import { useProposal, useProposalDiff } from "../api/queries";
import { ProblemView } from "../components/Problem";
import { useDomain } from "../components/schema";
import { Conflicts } from "../proposals/Conflicts";
import { DiffView } from "../proposals/DiffView";
import { MergePanel } from "../proposals/MergePanel";
import { ProposalHeader } from "../proposals/ProposalHeader";
import { Reviews } from "../proposals/Reviews";

export function ProposalPage() {
  const { domain } = useDomain();
  const { proposal: id = "" } = useParams();
  const read = useProposal(domain, id);
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
      <ProposalView proposal={proposal} />
    </section>
  );
}

function ProposalView(props: { proposal: Schemas["Proposal"] }) {
  const { proposal } = props;
  const diff = useProposalDiff(proposal);
  const showConflicts = proposal.conflicts.open + proposal.conflicts.resolved > 0;
  return (
    <>
      <ProposalHeader proposal={proposal} />
      <div className="columns">
        <div>
          {showConflicts && <Conflicts proposal={proposal} />}
          <DiffView proposal={proposal} diff={diff} />
        </div>
        <div>
          <MergePanel proposal={proposal} sourceHead={proposal.status === "open" && diff.data ? diff.data.to : null} />
          <Reviews proposal={proposal} />
        </div>
      </div>
    </>
  );
}
