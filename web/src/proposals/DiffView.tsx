// The diff of a Proposal: each changed Record with its Attributes before and after (a link to the
// Record page when its ref is one of the schema's Kinds), then the changed Links.
import type { Schemas } from "../api/client";
import type { Read } from "../api/queries";
import { ProblemView } from "../components/Problem";
import { RecordLink } from "../components/RecordLink";
import { BeforeAfterTable } from "../records/values";
import { changeLabel, diffRows } from "./diffRows";

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

export function DiffView(props: { proposal: Schemas["Proposal"]; diff: Read<Schemas["DiffAnswer"]> }) {
  const { proposal, diff } = props;
  const answer = diff.data;
  return (
    <section aria-labelledby="diff-heading">
      <h2 id="diff-heading">Diff</h2>
      {diff.problem && (
        <>
          <ProblemView problem={diff.problem} />
          {proposal.status === "closed" && (
            <p className="muted">A closed Proposal's task branch is deleted with it, so its diff may be gone.</p>
          )}
        </>
      )}
      {diff.loading && !answer && <p className="loading">Loading the diff…</p>}
      {answer && (
        <>
          <p className="muted">
            From <code>{answer.from.slice(0, 12)}</code> to <code>{answer.to.slice(0, 12)}</code>
            {proposal.status === "merged"
              ? " (what the merge brought)"
              : ` (${proposal.target_ref} → ${proposal.source_ref})`}
            : {count(answer.records.length, "Record")}, {count(answer.links.length, "Link")} changed.
          </p>
          {answer.records.map((entry) => (
            <div key={entry.ref}>
              <h3>
                <RecordLink refText={entry.ref} code /> <span className="badge">{changeLabel(entry.change)}</span>
              </h3>
              <BeforeAfterTable rows={diffRows(entry)} />
            </div>
          ))}
          {answer.links.length > 0 && (
            <>
              <h3>Links</h3>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Link</th>
                    <th scope="col">Change</th>
                    <th scope="col">Attributes</th>
                  </tr>
                </thead>
                <tbody>
                  {answer.links.map((entry) => (
                    <tr key={entry.ref}>
                      <td>
                        <code className="plain">{entry.ref}</code>
                      </td>
                      <td>{changeLabel(entry.change)}</td>
                      <td>{entry.attributes.join(", ")}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
        </>
      )}
    </section>
  );
}
