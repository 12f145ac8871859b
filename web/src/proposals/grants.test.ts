// @vitest-environment node
import { describe, expect, it } from "vitest";

import type { Schemas } from "../api/client";
import { hasPermission, matchesPattern } from "./grants";

function whoami(grants: { branch: string | null; permissions: string[] }[]): Schemas["Whoami"] {
  return {
    principal: "usr_reviewer",
    type: "user",
    authenticated_by: "api_key",
    grants: grants.map((g) => ({ domain: "supply", role: "reviewer", kinds: null, clearances: [], ...g })),
  };
}

describe("grants", () => {
  it("matches branch patterns as fnmatch does", () => {
    expect(matchesPattern("main", "*")).toBe(true);
    expect(matchesPattern("agent/svc_agent/task", "agent/*")).toBe(true);
    expect(matchesPattern("main", "agent/*")).toBe(false);
    expect(matchesPattern("mainx", "main")).toBe(false);
    expect(matchesPattern("a.b", "a?b")).toBe(true);
    expect(matchesPattern("axb", "a.b")).toBe(false);
  });

  it("finds a permission on the target branch only in a grant covering it", () => {
    const reviewer = whoami([{ branch: "*", permissions: ["data.read", "proposal.review", "proposal.merge"] }]);
    const agent = whoami([{ branch: "agent/*", permissions: ["proposal.review"] }]);
    expect(hasPermission(reviewer, "supply", "main", "proposal.merge")).toBe(true);
    expect(hasPermission(reviewer, "other", "main", "proposal.merge")).toBe(false);
    expect(hasPermission(agent, "supply", "main", "proposal.review")).toBe(false);
    expect(
      hasPermission(whoami([{ branch: null, permissions: ["proposal.review"] }]), "supply", "main", "proposal.review"),
    ).toBe(true);
    expect(hasPermission(null, "supply", "main", "proposal.review")).toBe(false);
  });
});
