import { useState } from "react";
import type { FormEvent } from "react";

import { asProblem, type ApiProblem } from "../api/client";
import { ProblemView } from "../components/Problem";
import { useSession } from "../session";

export function SignIn() {
  const { signIn, signInAtIssuer, issuerProblem, config } = useSession();
  const [key, setKey] = useState("");
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      await signIn(key);
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  }

  async function atIssuer() {
    setBusy(true);
    setProblem(null);
    try {
      await signInAtIssuer(); // the browser leaves for the issuer
    } catch (error) {
      setProblem(asProblem(error));
      setBusy(false);
    }
  }

  const shown = problem ?? issuerProblem;
  return (
    <main id="main" className="sign-in">
      <h1>Sign in to Lorebase</h1>
      {config.oidc && (
        <p>
          <button type="button" className="primary" disabled={busy} onClick={() => void atIssuer()}>
            Sign in with your organisation
          </button>
        </p>
      )}
      {config.apiKeys && (
        <>
          <form onSubmit={(event) => void submit(event)}>
            <label htmlFor="api-key">API key</label>
            <input
              id="api-key"
              type="password"
              autoComplete="off"
              spellCheck={false}
              value={key}
              onChange={(e) => setKey(e.target.value)}
              placeholder="lbk_..."
            />
            <button type="submit" disabled={busy}>
              Sign in
            </button>
          </form>
          <p className="hint">
            {config.authMode === "session"
              ? "The key is exchanged for a browser session (an HttpOnly cookie); the app does not keep it."
              : "The key is kept in this page's memory only: reloading the page signs you out."}{" "}
            <code>make demo</code> prints the demo's keys.
          </p>
        </>
      )}
      {shown && <ProblemView problem={shown} />}
    </main>
  );
}
