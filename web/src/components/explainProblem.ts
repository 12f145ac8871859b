// What a refusal means, said plainly: 401 (sign in again), 403 (the grants), 404 of a Kind the
// caller may not see (Keeper answers the same for a Kind that does not exist), 429 (when to retry).
import type { ApiProblem } from "../api/client";

export function explainProblem(problem: ApiProblem): string {
  if (problem.status === 0) return "Keeper did not answer. Is it running?";
  if (problem.status === 401) return "You are not signed in, or your key or session has ended. Sign in again.";
  if (problem.status === 403)
    return "Your grants do not allow this. Ask an administrator for a role with this permission.";
  if (problem.status === 404 && problem.code === "kind-not-found")
    return "This Kind does not exist in this Domain, or your grants do not include it: Keeper answers both the same way.";
  if (problem.status === 404) return "Not found, or not visible to you: Keeper answers both the same way.";
  if (problem.status === 429)
    return `Too many requests. Try again${problem.retryAfter ? ` in ${problem.retryAfter} s` : " later"}.`;
  return "";
}
