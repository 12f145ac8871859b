// Not built yet: replaced by the screen of docs/web.md.
export function CanvasPage() {
  return <p role="status">This screen (CanvasPage) is not built yet.</p>;
}
