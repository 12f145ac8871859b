// The reviews of a Proposal and the form to add one. The form shows only to a caller who may
// review (proposal.review on the target) and did not open the Proposal (authors do not approve
// their own, 409 self-approval); anyone else reads why it is not there.
import { useState } from "react";

import { data, type Schemas } from "../api/client";
import { ProblemView } from "../components/Problem";
import { useApi, useSession } from "../session";
import { shortTime } from "./format";
import { hasPermission } from "./grants";
import { useAction } from "./useAction";

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

export function Reviews(props: { proposal: Schemas["Proposal"]; onReviewed(): void }) {
  const { proposal } = props;
  const api = useApi();
  const { whoami } = useSession();
  const action = useAction();
  const [body, setBody] = useState("");
  const mayReview = hasPermission(whoami, proposal.domain, proposal.target_ref, "proposal.review");
  const why = whyNoForm(proposal, whoami?.principal ?? null, mayReview);

  async function review(verdict: Verdict) {
    const done = await action.run(() =>
      data(
        api.POST("/api/v1/domains/{domain}/proposals/{proposal}/reviews", {
          params: { path: { domain: proposal.domain, proposal: proposal.id } },
          body: { verdict, body },
        }),
      ),
    );
    if (done !== null) {
      setBody("");
      props.onReviewed();
    }
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
                disabled={action.busy}
                onClick={() => void review(verdict)}
              >
                {label}
              </button>
            ))}
          </div>
        </form>
      )}
      {action.problem && <ProblemView problem={action.problem} />}
    </section>
  );
}
