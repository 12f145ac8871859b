// Signs in, as the auth mode of the configuration says (session.ts), and provides the Session.
import { useCallback, useEffect, useMemo, useState } from "react";
import type { ReactNode } from "react";

import { ApiProblem, asProblem, data, keeper, type Credential, type Keeper, type Schemas } from "./api/client";
import type { WebConfig } from "./config";
import { authorizationUrl, CALLBACK_PATH, completeSignIn } from "./oidc";
import { SessionContext, type Session } from "./session";

/** The one trade of the issuer's code of this page load (a code is good once; StrictMode runs
 * effects twice in development). */
let callback: ReturnType<typeof completeSignIn> | null = null;

export function SessionProvider(props: { config: WebConfig; children: ReactNode }) {
  const { config } = props;
  const [credential, setCredential] = useState<Credential>({ mode: config.authMode });
  const [whoami, setWhoami] = useState<Schemas["Whoami"] | null>(null);
  const [checked, setChecked] = useState(false);
  const [issuerProblem, setIssuerProblem] = useState<ApiProblem | null>(null);
  const api = useMemo(() => keeper(config.keeperUrl, credential), [config.keeperUrl, credential]);

  const identify = useCallback(async (client: Keeper) => {
    setWhoami(await data(client.GET("/api/v1/auth/whoami")));
  }, []);

  useEffect(() => {
    // Mode none is signed in already; session mode may have a cookie from before.
    let cancelled = false;
    void (async () => {
      try {
        if (config.authMode === "session" && window.location.pathname === CALLBACK_PATH) {
          // Back from the issuer: trade its code for a session, then go where the user was.
          const plain = keeper(config.keeperUrl, { mode: "session" });
          try {
            callback ??= completeSignIn(plain, window.location.search, window.sessionStorage);
            const done = await callback;
            window.history.replaceState(null, "", done.returnTo);
            const next: Credential = { mode: "session", csrf: done.session.csrf_token };
            if (cancelled) return;
            setCredential(next);
            await identify(keeper(config.keeperUrl, next));
          } catch (error) {
            window.history.replaceState(null, "", "/");
            if (!cancelled) setIssuerProblem(asProblem(error));
          }
        } else if (config.authMode === "session") {
          const plain = keeper(config.keeperUrl, { mode: "session" });
          const current = await data(plain.GET("/api/v1/auth/session"));
          if (cancelled) return;
          const next: Credential = { mode: "session", csrf: current.csrf_token };
          setCredential(next);
          await identify(keeper(config.keeperUrl, next));
        } else if (config.authMode === "none") {
          await identify(keeper(config.keeperUrl, { mode: "none" }));
        }
      } catch {
        // Not signed in yet: the sign-in screen shows.
      } finally {
        if (!cancelled) setChecked(true);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [config, identify]);

  const signIn = useCallback(
    async (apiKey: string) => {
      const key = apiKey.trim();
      if (!key) throw new ApiProblem(400, { title: "No API key", detail: "Paste an API key (lbk_...)." });
      if (config.authMode === "session") {
        const plain = keeper(config.keeperUrl, { mode: "session" });
        const made = await data(plain.POST("/api/v1/auth/session", { body: { api_key: key } }));
        const next: Credential = { mode: "session", csrf: made.csrf_token };
        await identify(keeper(config.keeperUrl, next));
        setCredential(next);
      } else {
        const next: Credential = { mode: "token", token: key };
        await identify(keeper(config.keeperUrl, next));
        setCredential(next);
      }
    },
    [config, identify],
  );

  const signInAtIssuer = useCallback(async () => {
    const plain = keeper(config.keeperUrl, { mode: "session" });
    const oidc = await data(plain.GET("/api/v1/auth/oidc"));
    const here = window.location.pathname + window.location.search;
    window.location.assign(await authorizationUrl(oidc, window.location.origin, here, window.sessionStorage));
  }, [config.keeperUrl]);

  const signOut = useCallback(async () => {
    if (credential.mode === "session") {
      await api.DELETE("/api/v1/auth/session");
    }
    setWhoami(null);
    setCredential({ mode: config.authMode });
  }, [api, credential.mode, config.authMode]);

  const value = useMemo<Session>(
    () => ({ config, credential, api, whoami, signIn, signInAtIssuer, issuerProblem, signOut }),
    [config, credential, api, whoami, signIn, signInAtIssuer, issuerProblem, signOut],
  );
  if (!checked) return <p className="loading">Signing in…</p>;
  return <SessionContext.Provider value={value}>{props.children}</SessionContext.Provider>;
}
