// Not built yet: replaced by the screen of docs/web.md.
export function Explore() {
  return <p role="status">This screen (Explore) is not built yet.</p>;
}
