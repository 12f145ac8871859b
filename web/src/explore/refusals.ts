// What a refusal of Guide before the stream means (guide.md, "Errors before the stream"), and the
// wait a 429 imposes: asking stays disabled until its Retry-After has passed.
import type { ApiProblem } from "../api/client";

/** Seconds to wait after a 429 without Retry-After: Guide's own wait for a slot to free. */
const DEFAULT_RETRY_S = 5;

export function explainGuideRefusal(problem: ApiProblem): string {
  const code = problem.code;
  switch (problem.status) {
    case 0:
      return "Guide did not answer. Is it running (make demo starts it only when a chat model answers: docs/guide.md), and is keeper.web.guide_url its address?";
    case 401:
      return "Guide could not confirm who you are with Keeper: your key or session has ended. Sign in again.";
    case 403:
      if (code.includes("origin"))
        return "Guide does not accept calls from this page's origin (guide.http.allowed_origins).";
      if (code.includes("cross")) return "Guide refused a cross-site request without an Origin header.";
      if (code.includes("csrf")) return "The session's CSRF token did not match: sign in again.";
      return "Guide refused the request: your grants or its origin rules do not allow it.";
    case 411:
      return "Guide needs a request body with Content-Length (a proxy may have removed it).";
    case 413:
      return "The question is longer than Guide accepts: ask a shorter one.";
    case 422:
      return "Guide found the request not valid: see the detail above.";
    case 429:
      if (code.includes("concurrent")) return "You run an exploration already: wait for it to end, or stop it.";
      if (code.includes("busy")) return "Guide is busy with other explorations.";
      return "You asked Guide too often in the last minute.";
    case 502:
      return "Guide could not reach Keeper, or its model failed.";
    default:
      return "";
  }
}

/** When asking is allowed again after `problem` (epoch ms), or null when it does not wait. */
export function retryAt(problem: ApiProblem, now: number): number | null {
  if (problem.status !== 429) return null;
  return now + (problem.retryAfter ?? DEFAULT_RETRY_S) * 1000;
}

/** Whole seconds left until `until`; 0 once it has passed (asking is allowed again). */
export function secondsLeft(until: number | null, now: number): number {
  if (until === null) return 0;
  return Math.max(0, Math.ceil((until - now) / 1000));
}
