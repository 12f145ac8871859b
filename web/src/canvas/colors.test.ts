// @vitest-environment node
import { describe, expect, it } from "vitest";

import { PALETTE, relationColor } from "./colors";

describe("relationColor", () => {
  const relations = ["supplied_by", "ordered_from", "flags", "for_part", "with_supplier"];

  it("is deterministic and does not depend on the list's order", () => {
    const reversed = [...relations].reverse();
    for (const r of relations) {
      expect(relationColor(r, relations)).toBe(relationColor(r, reversed));
      expect(relationColor(r, relations)).toMatch(/^#[0-9A-F]{6}$/i);
    }
  });

  it("gives the Relations of a Domain distinct colours while the palette lasts", () => {
    const many = Array.from({ length: PALETTE.length }, (_, i) => `relation_${i}`);
    expect(new Set(many.map((r) => relationColor(r, many))).size).toBe(PALETTE.length);
  });

  it("keeps a colour for a Relation outside the list", () => {
    expect(relationColor("elsewhere", relations)).toBe(relationColor("elsewhere", relations));
    expect(PALETTE).toContain(relationColor("elsewhere", []));
  });

  it("takes colours in the sorted order of the Domain's Relations", () => {
    expect(relationColor("for_part", ["supplied_by", "for_part"])).toBe(PALETTE[0]);
    expect(relationColor("supplied_by", ["supplied_by", "for_part"])).toBe(PALETTE[1]);
  });
});
