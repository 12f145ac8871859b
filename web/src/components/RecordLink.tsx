// A Record ref as the app shows it: a link to the Record's page when `linkableRef` accepts it
// (a Kind of the schema, a key without control characters), else the ref as plain text.
import { Link } from "react-router-dom";

import { linkableRef, recordPath } from "./refs";
import { useDomain } from "./schema";

export function RecordLink(props: { refText: string; search?: string; code?: boolean }) {
  const { domain, kinds } = useDomain();
  const ref = linkableRef(props.refText, kinds);
  const text = props.code ? (
    <code className="plain">{props.refText}</code>
  ) : (
    <span className="plain">{props.refText}</span>
  );
  if (ref === null) return text;
  return <Link to={recordPath(domain, ref) + (props.search ?? "")}>{text}</Link>;
}
