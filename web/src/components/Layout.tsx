// The frame of every screen: a skip link, the navigation of the Domain on screen (it keeps the
// read point), who is signed in, and the screen itself.
import { NavLink, Outlet, useLocation } from "react-router-dom";

import { useSession } from "../session";
import { pointSearch, useReadPoint } from "./readPoint";

const SCREENS: [string, string][] = [
  ["", "Overview"],
  ["canvas", "Canvas"],
  ["proposals", "Proposals"],
  ["explore", "Explore"],
  ["agent-activity", "Agent activity"],
  ["lab", "Retrieval lab"],
];

export function Layout() {
  const { whoami, signOut, config } = useSession();
  const location = useLocation();
  const point = useReadPoint();
  const first = location.pathname.split("/")[1] ?? "";
  const domain = first ? decodeURIComponent(first) : null;
  const search = pointSearch(point);
  const screens = SCREENS.filter(([path]) => path !== "explore" || config.guideUrl || config.mock);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to the content
      </a>
      <header className="top">
        <NavLink to="/" className="brand">
          Lorebase
        </NavLink>
        {domain && (
          <nav aria-label="Domain">
            <span className="domain-name">{domain}</span>
            {screens.map(([path, label]) => (
              <NavLink key={path} end={path === ""} to={`/${encodeURIComponent(domain)}/${path}${search}`}>
                {label}
              </NavLink>
            ))}
          </nav>
        )}
        <div className="who">
          {whoami && <span title={whoami.type}>{whoami.principal}</span>}
          {config.authMode !== "none" && (
            <button type="button" onClick={() => void signOut()}>
              Sign out
            </button>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
