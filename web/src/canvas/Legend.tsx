// The Relations drawn on a Canvas, each with its colour.
import { relationColor } from "./colors";

export function Legend(props: { drawn: readonly string[]; relations: readonly string[] }) {
  if (props.drawn.length === 0) return null;
  return (
    <ul className="legend" aria-label="Relations" style={{ listStyle: "none", padding: 0 }}>
      {props.drawn.map((relation) => (
        <li key={relation}>
          <i aria-hidden="true" style={{ background: relationColor(relation, props.relations) }} />
          {relation}
        </li>
      ))}
    </ul>
  );
}
