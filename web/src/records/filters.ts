// A Kind table's filters and sort as URL parameters, like Datasette: `tier__eq=1`,
// `name__contains=bearing`, `_sort=risk_score`, `_desc=1`, `_cursor=...`. They become one POST
// /query, and a plain-English sentence says what the table shows.
import type { KindSchema } from "../components/schema";

export const OPERATORS = {
  eq: "is",
  ne: "is not",
  lt: "is below",
  lte: "is at most",
  gt: "is above",
  gte: "is at least",
  contains: "contains",
  starts_with: "starts with",
  is_null: "is empty",
} as const;

export type Operator = keyof typeof OPERATORS;

export interface Filter {
  attr: string;
  op: Operator;
  value: string;
}

export interface TableState {
  filters: Filter[];
  sort: string | null;
  desc: boolean;
  cursor: string | null;
}

const RESERVED = new Set(["_sort", "_desc", "_cursor", "branch", "at"]);

export function isOperator(op: string): op is Operator {
  return Object.prototype.hasOwnProperty.call(OPERATORS, op);
}

export function readTable(params: URLSearchParams): TableState {
  const filters: Filter[] = [];
  for (const [name, value] of params) {
    if (RESERVED.has(name)) continue;
    const cut = name.lastIndexOf("__");
    if (cut <= 0) continue;
    const attr = name.slice(0, cut);
    const op = name.slice(cut + 2);
    if (isOperator(op)) filters.push({ attr, op, value });
  }
  return {
    filters,
    sort: params.get("_sort") || null,
    desc: params.get("_desc") === "1",
    cursor: params.get("_cursor") || null,
  };
}

export function writeTable(state: TableState, keep: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams();
  for (const name of ["branch", "at"]) {
    const value = keep.get(name);
    if (value) next.set(name, value);
  }
  for (const f of state.filters) next.append(`${f.attr}__${f.op}`, f.value);
  if (state.sort) next.set("_sort", state.sort);
  if (state.sort && state.desc) next.set("_desc", "1");
  if (state.cursor) next.set("_cursor", state.cursor);
  return next;
}

const NUMERIC = /^(integer|decimal)/;

/** A filter's value typed as the Attribute's type wants it in the DSL. */
export function typedValue(kind: KindSchema | undefined, filter: Filter): unknown {
  const type = kind?.attributes.find((a) => a.name === filter.attr)?.type ?? "string";
  if (filter.op === "is_null") return filter.value !== "false";
  if (type === "boolean") return filter.value === "true";
  if (NUMERIC.test(type) && filter.value.trim() !== "" && Number.isFinite(Number(filter.value))) {
    return type.startsWith("integer") ? Number(filter.value) : filter.value.trim();
  }
  return filter.value;
}

/** The POST /query body of a table at a read point. */
export function queryBody(
  kindName: string,
  kind: KindSchema | undefined,
  state: TableState,
  point: { branch?: string; at?: string },
  limit: number,
): Record<string, unknown> {
  const predicates = state.filters.map((f) => ({ attr: f.attr, op: f.op, value: typedValue(kind, f) }));
  const body: Record<string, unknown> = { kind: kindName, limit, ...point };
  if (predicates.length === 1) body.where = predicates[0];
  if (predicates.length > 1) body.where = { and: predicates };
  if (state.sort) body.order_by = [{ attr: state.sort, dir: state.desc ? "desc" : "asc" }];
  if (state.cursor) body.cursor = state.cursor;
  return body;
}

/** "Suppliers where tier is 1 and city contains "Poz", by risk_score, highest first." */
export function describeTable(kindName: string, state: TableState): string {
  const parts = state.filters.map((f) =>
    f.op === "is_null"
      ? `${f.attr} ${f.value === "false" ? "is not empty" : "is empty"}`
      : `${f.attr} ${OPERATORS[f.op]} "${f.value}"`,
  );
  let text = `${kindName} Records`;
  text += parts.length ? ` where ${parts.join(" and ")}` : ", all of them";
  if (state.sort) text += `, by ${state.sort}, ${state.desc ? "highest first" : "lowest first"}`;
  else text += ", in key order";
  return `${text}.`;
}
