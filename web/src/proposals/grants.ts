// What the signed-in principal may do with a Proposal, read from its grants (whoami). Keeper
// decides again on every request; this only keeps the screen from offering a form that would be
// refused, and says why it is not offered.
import type { Schemas } from "../api/client";

type Whoami = Schemas["Whoami"];

/** fnmatch of a grant's Domain or branch pattern, as Keeper matches it (`*` also spans `/`). */
export function matchesPattern(value: string, pattern: string): boolean {
  const source = pattern
    .split("")
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\/-]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`).test(value);
}

/** Whether a grant of `whoami` gives `permission` on the branch (a grant naming no branch covers all). */
export function hasPermission(whoami: Whoami | null, domain: string, branch: string, permission: string): boolean {
  if (whoami === null) return false;
  return whoami.grants.some(
    (g) =>
      matchesPattern(domain, g.domain) &&
      (g.branch === null || matchesPattern(branch, g.branch)) &&
      g.permissions.includes(permission),
  );
}
