// A Record value as the app shows it: text (never HTML), and a masked value (the caller's
// clearances do not cover the Attribute's sensitivity; Keeper sends "***") marked as masked.
export const MASK = "***";

export function ValueText(props: { value: unknown }) {
  const { value } = props;
  if (value === MASK) {
    return (
      <span className="badge masked" title="Masked: your clearances do not cover this value">
        masked
      </span>
    );
  }
  if (value === null || value === undefined) return <span className="muted">—</span>;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return <span className="plain">{text}</span>;
}
