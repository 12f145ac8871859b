// Not built yet: replaced by the screen of docs/web.md.
export function ProposalPage() {
  return <p role="status">This screen (ProposalPage) is not built yet.</p>;
}
