// A Record value as the app shows it: text (never HTML), and a masked value (the caller's
// clearances do not cover the Attribute's sensitivity; Keeper sends "***") marked as masked.
export const MASK = "***";
export const ABSENT = "—";

/** A value as text: strings as they are, an absent value as a dash, anything else as JSON. */
// eslint-disable-next-line react-refresh/only-export-components -- ValueText's text; diffRows and the tests import it
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return ABSENT;
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

export function ValueText(props: { value: unknown }) {
  const { value } = props;
  if (value === MASK) {
    return (
      <span className="badge masked" title="Masked: your clearances do not cover this value">
        masked
      </span>
    );
  }
  if (value === null || value === undefined) return <span className="muted">{ABSENT}</span>;
  return <span className="plain">{formatValue(value)}</span>;
}

/** An Attribute's value before and after a change, one row each (history, a Proposal's diff). */
export function BeforeAfterTable(props: {
  label?: string;
  rows: { attribute: string; before: unknown; after: unknown }[];
}) {
  return (
    <div className="table-wrap">
      <table aria-label={props.label}>
        <thead>
          <tr>
            <th scope="col">Attribute</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={row.attribute}>
              <th scope="row">{row.attribute}</th>
              <td>
                <ValueText value={row.before} />
              </td>
              <td>
                <ValueText value={row.after} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
