// @vitest-environment node
import { describe, expect, it } from "vitest";

import { canvasHref, citationViews, tracePath } from "./citations";

const KINDS = new Set(["Supplier", "Part"]);
const HEAD = { branch: null, at: null };

describe("citations", () => {
  it("links only refs of a Kind of the schema whose key has no control character", () => {
    const views = citationViews(
      [
        { ref: "Supplier/S-1", kind: "Supplier", key: "S-1" },
        { ref: "Nope/X-1", kind: "Nope", key: "X-1" },
        { ref: "Part/P\u00071", kind: "Part", key: "P\u00071" },
        { ref: "Part/P\n2", kind: "Part", key: "P\n2" },
        { ref: "javascript:alert(1)", kind: "", key: "" },
      ],
      "supply",
      KINDS,
      HEAD,
    );
    expect(views.map((view) => view.href)).toEqual(["/supply/kinds/Supplier/S-1", null, null, null, null]);
  });

  it("keeps the branch and percent-encodes keys", () => {
    const [view] = citationViews([{ ref: "Part/a b/c", kind: "Part", key: "a b/c" }], "supply", KINDS, {
      branch: "what-if",
      at: "abc",
    });
    expect(view?.href).toBe("/supply/kinds/Part/a%20b%2Fc?branch=what-if");
  });

  it("draws the linkable citations on the Canvas, highlighted", () => {
    const views = citationViews(
      [
        { ref: "Supplier/S-1", kind: "Supplier", key: "S-1" },
        { ref: "Nope/X", kind: "Nope", key: "X" },
        { ref: "Part/P-2", kind: "Part", key: "P-2" },
      ],
      "supply",
      KINDS,
      HEAD,
    );
    expect(canvasHref(views, "supply", { branch: "b1", at: null })).toBe(
      "/supply/canvas?ref=Supplier%2FS-1&ref=Part%2FP-2&highlight=Supplier%2FS-1&highlight=Part%2FP-2&branch=b1",
    );
    expect(canvasHref(views.slice(1, 2), "supply", HEAD)).toBeNull();
    expect(tracePath("supply", "guide-ab12")).toBe("/supply/agent-activity?session=guide-ab12");
  });
});
