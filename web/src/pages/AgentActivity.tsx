// Not built yet: replaced by the screen of docs/web.md.
export function AgentActivity() {
  return <p role="status">This screen (AgentActivity) is not built yet.</p>;
}
