import { Link } from "react-router-dom";

import { data } from "../api/client";
import { useRead } from "../api/useRead";
import { ProblemView } from "../components/Problem";
import { useApi } from "../session";

export function Domains() {
  const api = useApi();
  const read = useRead(() => data(api.GET("/api/v1/domains")), [api]);
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
