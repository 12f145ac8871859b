// The rows of a Proposal's diff: one per changed Attribute of a Record, its value before and
// after. A created or deleted Record lists every Attribute of the side it has (`attributes` of
// the DiffEntry names only those that differ, and may be empty for a whole-Record change).
import type { Schemas } from "../api/client";
import { formatValue } from "../records/values";

type DiffEntry = Schemas["DiffEntry"];

export interface DiffRow {
  attribute: string;
  before: string;
  after: string;
}

export function diffRows(entry: DiffEntry): DiffRow[] {
  const before = entry.before ?? {};
  const after = entry.after ?? {};
  const names = entry.attributes.length
    ? entry.attributes
    : [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return names.map((attribute) => ({
    attribute,
    before: formatValue(before[attribute]),
    after: formatValue(after[attribute]),
  }));
}

/** What happened to the Record, in the words of the screen. */
export function changeLabel(change: string): string {
  if (change === "created") return "added";
  if (change === "deleted") return "deleted";
  if (change === "modified") return "changed";
  return change;
}
