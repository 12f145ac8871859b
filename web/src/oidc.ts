// Signing in at the OIDC issuer (authorization code with PKCE, S256), for Keepers in an oidc auth
// mode. The app sends the browser to the issuer with a fresh verifier's challenge, a state and a
// nonce, kept in sessionStorage for the return; on the return (`/auth/callback?code=&state=`)
// it checks the state and trades the code for Keeper's session cookie (POST /auth/session with
// the code, the verifier, the redirect URI and the nonce: Keeper checks the ID token's nonce).
// The issuer's tokens never reach the page: Keeper exchanges the code itself.
import { ApiProblem, data, type Keeper, type Schemas } from "./api/client";

export const CALLBACK_PATH = "/auth/callback";
const STORAGE_KEY = "lorebase.oidc";

interface Pending {
  verifier: string;
  state: string;
  nonce: string;
  redirectUri: string;
  returnTo: string;
}

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function randomText(size = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(size)));
}

export async function challengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** The redirect URI of this page's origin among those Keeper allows, or null. */
export function redirectUriFor(origin: string, allowed: readonly string[]): string | null {
  const wanted = origin + CALLBACK_PATH;
  return allowed.includes(wanted) ? wanted : null;
}

/** Where the issuer is to send the browser back; throws when Keeper allows no URI of this origin. */
export async function authorizationUrl(
  oidc: Schemas["OidcConfiguration"],
  origin: string,
  returnTo: string,
  storage: Storage,
): Promise<string> {
  const redirectUri = redirectUriFor(origin, oidc.redirect_uris);
  if (!oidc.authorization_endpoint) {
    throw new ApiProblem(502, { title: "The issuer has no authorization endpoint", code: "oidc_unusable" });
  }
  if (redirectUri === null) {
    throw new ApiProblem(400, {
      title: "This address may not sign in",
      detail: `Add ${origin}${CALLBACK_PATH} to keeper.auth.oidc.redirect_uris (and to the issuer's client).`,
      code: "redirect_uri_not_allowed",
    });
  }
  const pending: Pending = {
    verifier: randomText(48),
    state: randomText(16),
    nonce: randomText(16),
    redirectUri,
    returnTo,
  };
  storage.setItem(STORAGE_KEY, JSON.stringify(pending));
  const url = new URL(oidc.authorization_endpoint);
  const scopes = oidc.scopes.includes("openid") ? oidc.scopes : ["openid", ...oidc.scopes];
  url.search = new URLSearchParams({
    client_id: oidc.client_id,
    response_type: "code",
    redirect_uri: redirectUri,
    scope: scopes.join(" "),
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await challengeOf(pending.verifier),
    code_challenge_method: "S256",
  }).toString();
  return url.toString();
}

/** The session made from the issuer's answer in `search`, and where to go next. */
export async function completeSignIn(
  api: Keeper,
  search: string,
  storage: Storage,
): Promise<{ session: Schemas["SessionAnswer"]; returnTo: string }> {
  const params = new URLSearchParams(search);
  const raw = storage.getItem(STORAGE_KEY);
  storage.removeItem(STORAGE_KEY); // one use, whatever happens
  const error = params.get("error");
  if (error) {
    throw new ApiProblem(401, {
      title: "The issuer refused the sign-in",
      detail: `${error}${params.get("error_description") ? `: ${params.get("error_description")}` : ""}`,
      code: "oidc_refused",
    });
  }
  const pending = raw ? (JSON.parse(raw) as Pending) : null;
  const code = params.get("code");
  if (pending === null || !code || params.get("state") !== pending.state) {
    throw new ApiProblem(400, {
      title: "This sign-in was not started here",
      detail: "Its state does not match a sign-in this tab started: sign in again.",
      code: "oidc_state_mismatch",
    });
  }
  const session = await data(
    api.POST("/api/v1/auth/session", {
      body: { code, code_verifier: pending.verifier, redirect_uri: pending.redirectUri, nonce: pending.nonce },
    }),
  );
  return { session, returnTo: pending.returnTo };
}
