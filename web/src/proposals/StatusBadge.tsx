// A Proposal's status as a badge: open ones stand out (they wait for someone).
import type { Schemas } from "../api/client";

export function StatusBadge(props: { status: Schemas["Proposal"]["status"] }) {
  return <span className={props.status === "open" ? "badge warn" : "badge"}>{props.status}</span>;
}
