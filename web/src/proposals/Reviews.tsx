// The reviews of a Proposal and the form to add one. The form shows only to a caller who may
// review (proposal.review on the target) and did not open the Proposal (authors do not approve
// their own, 409 self-approval); anyone else reads why it is not there.
import { useState } from "react";

import type { Schemas } from "../api/client";
import { useReviewProposal } from "../api/queries";
import { ProblemView } from "../components/Problem";
import { useSession } from "../session";
import { shortTime } from "./format";
import { hasPermission } from "./grants";

type Verdict = Schemas["ReviewRequest"]["verdict"];

const VERDICTS: [Verdict, string][] = [
  ["approve", "Approve"],
  ["request_changes", "Request changes"],
  ["comment", "Comment"],
];

function whyNoForm(proposal: Schemas["Proposal"], principal: string | null, mayReview: boolean): string | null {
  if (proposal.status !== "open") return `This Proposal is ${proposal.status}: it takes no more reviews.`;
  if (principal === proposal.created_by) return "You opened this Proposal: someone else reviews it.";
  if (!mayReview)
    return `Your grants do not include proposal.review on ${proposal.target_ref}, so you cannot review this Proposal.`;
  return null;
}

export function Reviews(props: { proposal: Schemas["Proposal"] }) {
  const { proposal } = props;
  const { whoami } = useSession();
  const write = useReviewProposal(proposal);
  const [body, setBody] = useState("");
  const mayReview = hasPermission(whoami, proposal.domain, proposal.target_ref, "proposal.review");
  const why = whyNoForm(proposal, whoami?.principal ?? null, mayReview);

  function review(verdict: Verdict) {
    write.mutate({ verdict, body }, { onSuccess: () => setBody("") });
  }

  return (
    <section aria-labelledby="reviews-heading">
      <h2 id="reviews-heading">Reviews</h2>
      {proposal.reviews.length === 0 ? (
        <p className="muted">No reviews yet.</p>
      ) : (
        <ul className="cards">
          {proposal.reviews.map((r) => (
            <li key={r.id}>
              <span className={r.verdict === "request_changes" ? "badge warn" : "badge"}>
                {r.verdict.replace("_", " ")}
              </span>{" "}
              {r.reviewer} <span className="muted">· {shortTime(r.created_at)}</span>
              {r.body && <p className="plain">{r.body}</p>}
            </li>
          ))}
        </ul>
      )}
      {why ? (
        <p className="muted">{why}</p>
      ) : (
        <form onSubmit={(e) => e.preventDefault()}>
          <label htmlFor="review-body">Review comment</label>
          <br />
          <textarea
            id="review-body"
            rows={3}
            cols={60}
            value={body}
            onChange={(e) => setBody(e.target.value)}
            maxLength={20000}
          />
          <div className="pager">
            {VERDICTS.map(([verdict, label]) => (
              <button
                key={verdict}
                type="button"
                className={verdict === "approve" ? "primary" : undefined}
                disabled={write.isPending}
                onClick={() => review(verdict)}
              >
                {label}
              </button>
            ))}
          </div>
        </form>
      )}
      {write.error && <ProblemView problem={write.error} />}
    </section>
  );
}
