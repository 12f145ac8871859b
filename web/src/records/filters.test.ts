import { describe, expect, it } from "vitest";

import type { KindSchema } from "../components/schema";
import { describeTable, queryBody, readTable, writeTable } from "./filters";

const supplier = {
  name: "Supplier",
  attributes: [
    { name: "tier", type: "enum" },
    { name: "risk_score", type: "integer" },
    { name: "city", type: "string" },
  ],
} as unknown as KindSchema;

describe("table state in the URL", () => {
  it("reads filters, sort and cursor, ignoring unknown operators and the read point", () => {
    const state = readTable(
      new URLSearchParams("tier__eq=1&risk_score__gte=70&city__like=x&_sort=risk_score&_desc=1&_cursor=c1&at=r1"),
    );
    expect(state).toEqual({
      filters: [
        { attr: "tier", op: "eq", value: "1" },
        { attr: "risk_score", op: "gte", value: "70" },
      ],
      sort: "risk_score",
      desc: true,
      cursor: "c1",
    });
  });

  it("writes back what it read, keeping branch and at", () => {
    const keep = new URLSearchParams("branch=b1&at=r1&tier__eq=2");
    const state = readTable(new URLSearchParams("tier__eq=1&_sort=city"));
    expect(writeTable(state, keep).toString()).toBe("branch=b1&at=r1&tier__eq=1&_sort=city");
  });
});

describe("the query of a table", () => {
  it("types numbers for integer Attributes and joins filters with and", () => {
    const state = readTable(new URLSearchParams("tier__eq=1&risk_score__gte=70&_sort=risk_score&_desc=1"));
    expect(queryBody("Supplier", supplier, state, { at: "r1" }, 50)).toEqual({
      kind: "Supplier",
      limit: 50,
      at: "r1",
      where: {
        and: [
          { attr: "tier", op: "eq", value: "1" },
          { attr: "risk_score", op: "gte", value: 70 },
        ],
      },
      order_by: [{ attr: "risk_score", dir: "desc" }],
    });
  });

  it("sends one predicate alone and none without filters", () => {
    expect(queryBody("Supplier", supplier, readTable(new URLSearchParams("city__contains=Poz")), {}, 10).where).toEqual(
      {
        attr: "city",
        op: "contains",
        value: "Poz",
      },
    );
    expect(queryBody("Supplier", supplier, readTable(new URLSearchParams("")), {}, 10)).not.toHaveProperty("where");
  });
});

describe("the sentence of a table", () => {
  it("says what is filtered and how it is sorted", () => {
    const state = readTable(new URLSearchParams("tier__eq=1&risk_score__gte=70&_sort=risk_score&_desc=1"));
    expect(describeTable("Supplier", state)).toBe(
      'Supplier Records where tier is "1" and risk_score is at least "70", by risk_score, highest first.',
    );
    expect(describeTable("Part", readTable(new URLSearchParams("")))).toBe("Part Records, all of them, in key order.");
  });
});
