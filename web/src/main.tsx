import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

import { App } from "./App";
import { loadConfig } from "./config";
import "./styles.css";

const root = createRoot(document.getElementById("root")!);
loadConfig().then(
  (config) =>
    root.render(
      <StrictMode>
        <App config={config} />
      </StrictMode>,
    ),
  (error: unknown) =>
    root.render(
      <div className="problem" role="alert">
        <h2>The app could not start</h2>
        <p>{String(error)}</p>
        <p>Keeper serves /web-config.json when keeper.web.dist names the web app's build (docs/web.md).</p>
      </div>,
    ),
);
