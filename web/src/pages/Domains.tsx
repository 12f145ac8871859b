import { Link } from "react-router-dom";

import { useDomains } from "../api/queries";
import { ProblemView } from "../components/Problem";

export function Domains() {
  const read = useDomains();
  if (read.problem) return <ProblemView problem={read.problem} />;
  if (!read.data) return <p className="loading">Loading Domains…</p>;
  return (
    <section>
      <h1>Domains</h1>
      {read.data.domains.length === 0 && <p>No Domain is visible to you.</p>}
      <ul className="cards">
        {read.data.domains.map((d) => (
          <li key={d.name}>
            <Link to={`/${encodeURIComponent(d.name)}/`}>{d.name}</Link>
            <span className="muted"> default branch {d.default_branch}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
