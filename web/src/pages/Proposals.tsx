// Not built yet: replaced by the screen of docs/web.md.
export function Proposals() {
  return <p role="status">This screen (Proposals) is not built yet.</p>;
}
