import { useState } from "react";
import type { FormEvent } from "react";

import { ApiProblem } from "../api/client";
import { ProblemView } from "../components/Problem";
import { useSession } from "../session";

export function SignIn() {
  const { signIn, config } = useSession();
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
      setProblem(error instanceof ApiProblem ? error : new ApiProblem(0, { title: String(error) }));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="sign-in">
      <h1>Sign in to Lorebase</h1>
      <form onSubmit={submit}>
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
      {problem && <ProblemView problem={problem} />}
    </main>
  );
}
