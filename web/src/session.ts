// Who the app calls Keeper as. Token mode keeps the pasted API key in memory only (a reload signs
// out); session mode trades the key for Keeper's session cookie (HttpOnly) and keeps the CSRF
// token the session answers; mode none needs no sign-in (Keeper in auth mode none). The signing
// in is SessionProvider.tsx's; screens read the Session with useSession() and useApi().
import { createContext, useContext } from "react";

import type { ApiProblem, Credential, Keeper, Schemas } from "./api/client";
import type { WebConfig } from "./config";

export interface Session {
  config: WebConfig;
  credential: Credential;
  api: Keeper;
  whoami: Schemas["Whoami"] | null;
  signIn: (apiKey: string) => Promise<void>;
  /** Sends the browser to the OIDC issuer; it comes back to CALLBACK_PATH. */
  signInAtIssuer: () => Promise<void>;
  /** Why the last sign-in at the issuer failed, shown on the sign-in screen. */
  issuerProblem: ApiProblem | null;
  signOut: () => Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const found = useContext(SessionContext);
  if (found === null) throw new Error("useSession outside SessionProvider");
  return found;
}

export function useApi(): Keeper {
  return useSession().api;
}
