// Not built yet: replaced by the screen of docs/web.md.
export function RetrievalLab() {
  return <p role="status">This screen (RetrievalLab) is not built yet.</p>;
}
