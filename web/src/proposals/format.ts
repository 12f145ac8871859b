// How the Proposal screens show times: to the minute in UTC, as Keeper writes them. Values go
// through records/values (formatValue, ValueText), as on every screen.

/** "2026-12-03T16:49:08.673896Z" → "2026-12-03 16:49 UTC"; anything else as it is. */
export function shortTime(iso: string): string {
  const found = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return found ? `${found[1]} ${found[2]} UTC` : iso;
}
