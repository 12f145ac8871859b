// Not built yet: replaced by the screen of docs/web.md.
export function Records() {
  return <p role="status">This screen (Records) is not built yet.</p>;
}
