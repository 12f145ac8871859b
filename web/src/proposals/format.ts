// How the Proposal screens show values and times: attribute values as text (never markup), an
// absent value as a dash, times to the minute in UTC as Keeper writes them.

export const ABSENT = "—";

export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return ABSENT;
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** "2026-12-03T16:49:08.673896Z" → "2026-12-03 16:49 UTC"; anything else as it is. */
export function shortTime(iso: string): string {
  const found = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return found ? `${found[1]} ${found[2]} UTC` : iso;
}
