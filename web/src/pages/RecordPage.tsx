// Not built yet: replaced by the screen of docs/web.md.
export function RecordPage() {
  return <p role="status">This screen (RecordPage) is not built yet.</p>;
}
