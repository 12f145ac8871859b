// Which two ends a Proposal's diff compares. An open or closed Proposal: the Revision its source
// branch was cut from (the merge base) against the source head, so the diff is what the task
// changed, not what the target changed since, reversed; a source branch that is gone or has
// no base falls back to the target head. A
// merged one: the merge Revision against its first parent on the target (what the merge
// brought), since the task branch is usually deleted by then; the parent is read from the
// target's recent changes, which name each Revision's parents.
import { ApiProblem, data, type Keeper, type Schemas } from "../api/client";

/** How many recent changes of the target are searched for the merge Revision. */
const RECENT_CHANGES = 200;

export async function loadProposalDiff(
  api: Keeper,
  domain: string,
  proposal: Schemas["Proposal"],
): Promise<Schemas["DiffAnswer"]> {
  let from = proposal.target_ref;
  let to = proposal.source_ref;
  if (proposal.status !== "merged") {
    const source = await api.GET("/api/v1/domains/{domain}/branches/{branch}", {
      params: { path: { domain, branch: proposal.source_ref } },
    });
    if (source.data?.base_revision) from = source.data.base_revision;
  }
  if (proposal.status === "merged" && proposal.merged_revision) {
    const changes = await data(
      api.GET("/api/v1/domains/{domain}/branches/{branch}/changes", {
        params: { path: { domain, branch: proposal.target_ref }, query: { limit: RECENT_CHANGES } },
      }),
    );
    const merge = changes.events.find((e) => e.revision === proposal.merged_revision);
    const parent = merge?.parents[0];
    if (!parent)
      throw new ApiProblem(404, {
        title: "The merge Revision is not among the recent changes",
        detail: `Revision ${proposal.merged_revision} is older than the last ${RECENT_CHANGES} changes of ${proposal.target_ref}.`,
        code: "merge-revision-not-recent",
      });
    from = parent;
    to = proposal.merged_revision;
  }
  return data(api.GET("/api/v1/domains/{domain}/diff", { params: { path: { domain }, query: { from, to } } }));
}
