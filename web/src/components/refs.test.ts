import { describe, expect, it } from "vitest";

import { linkableRef, parseRef, recordPath } from "./refs";

const kinds = new Set(["Supplier", "Part"]);

describe("refs", () => {
  it("parses Kind/Key, keys with slashes included", () => {
    expect(parseRef("Supplier/S-1001")).toEqual({ kind: "Supplier", key: "S-1001" });
    expect(parseRef("Part/a/b")).toEqual({ kind: "Part", key: "a/b" });
    expect(parseRef("Supplier/")).toBeNull();
    expect(parseRef("/S-1")).toBeNull();
  });

  it("links only Kinds of the schema and keys without control characters", () => {
    expect(linkableRef("Supplier/S-1001", kinds)).not.toBeNull();
    expect(linkableRef("Contract/C-1", kinds)).toBeNull();
    expect(linkableRef("Supplier/S-1\u0000x", kinds)).toBeNull();
    expect(linkableRef("Supplier/S-1\nx", kinds)).toBeNull();
    expect(linkableRef("javascript:alert(1)", kinds)).toBeNull();
  });

  it("percent-encodes every segment of a Record's path", () => {
    expect(recordPath("supply", { kind: "Part", key: "a/b?c#d" })).toBe("/supply/kinds/Part/a%2Fb%3Fc%23d");
  });
});
