// @vitest-environment node
import { describe, expect, it } from "vitest";

import { listQuery, readFilters, writeFilters } from "./listFilters";

describe("listFilters", () => {
  it("reads open Proposals by default and keeps the filters in the URL", () => {
    const filters = readFilters(new URLSearchParams(""));
    expect(filters).toEqual({ status: "open", assignedToMe: false, createdByMe: false, cursor: null });
    expect(writeFilters(filters).toString()).toBe("");
    const all = readFilters(new URLSearchParams("status=all&assigned=me&created_by=me&cursor=abc"));
    expect(writeFilters(all).toString()).toBe("status=all&assigned=me&created_by=me&cursor=abc");
    expect(readFilters(new URLSearchParams("status=bogus")).status).toBe("open");
  });

  it("asks Keeper without a status for all", () => {
    expect(listQuery(readFilters(new URLSearchParams("status=all")), 50)).toEqual({ limit: 50 });
    expect(listQuery(readFilters(new URLSearchParams("status=merged&assigned=me&cursor=c")), 50)).toEqual({
      limit: 50,
      status: "merged",
      assigned: "me",
      cursor: "c",
    });
  });
});
