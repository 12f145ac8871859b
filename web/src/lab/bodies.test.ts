// @vitest-environment node
import { describe, expect, it } from "vitest";

import { contextBody, DEFAULT_PACK, DEFAULT_SEARCH, searchBody } from "./bodies";

describe("the lab's bodies", () => {
  it("send only the members set (Keeper refuses some nulls)", () => {
    expect(searchBody("bering", DEFAULT_SEARCH, null)).toEqual({ q: "bering", mode: "lexical", limit: 10 });
    expect(searchBody("q", { mode: "hybrid", limit: null, kinds: ["Part"], lens: "risk" }, "b1", [0.5])).toEqual({
      q: "q",
      mode: "hybrid",
      kinds: ["Part"],
      lens: "risk",
      query_vector: [0.5],
      branch: "b1",
    });
    expect(contextBody("bering", "supplier_risk", { ...DEFAULT_PACK, includeSchema: "false" }, null)).toEqual({
      search: "bering",
      lens: "supplier_risk",
      budget_tokens: 2000,
      depth: 1,
      include_schema: false,
      format: "json",
    });
  });
});
