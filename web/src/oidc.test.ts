// @vitest-environment node
import { describe, expect, it } from "vitest";

import type { Keeper, Schemas } from "./api/client";
import { authorizationUrl, challengeOf, completeSignIn, redirectUriFor } from "./oidc";

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, value),
  };
}

const OIDC = {
  issuer: "http://127.0.0.1:9000",
  client_id: "lorebase-web",
  authorization_endpoint: "http://127.0.0.1:9000/auth",
  token_endpoint: "http://127.0.0.1:9000/token",
  device_authorization_endpoint: null,
  scopes: ["openid", "profile", "groups"],
  redirect_uris: ["http://127.0.0.1:8080/auth/callback"],
  audience: ["urn:lorebase:keeper"],
} as unknown as Schemas["OidcConfiguration"];

describe("the OIDC sign-in", () => {
  it("uses only a redirect URI Keeper allows for this origin", () => {
    expect(redirectUriFor("http://127.0.0.1:8080", OIDC.redirect_uris)).toBe("http://127.0.0.1:8080/auth/callback");
    expect(redirectUriFor("http://evil.test", OIDC.redirect_uris)).toBeNull();
  });

  it("sends the challenge of the verifier it keeps, with state and nonce", async () => {
    const storage = memoryStorage();
    const url = new URL(await authorizationUrl(OIDC, "http://127.0.0.1:8080", "/supply/", storage));
    const pending = JSON.parse(storage.getItem("lorebase.oidc")!) as Record<string, string>;
    expect(url.origin + url.pathname).toBe("http://127.0.0.1:9000/auth");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: "lorebase-web",
      response_type: "code",
      redirect_uri: "http://127.0.0.1:8080/auth/callback",
      scope: "openid profile groups",
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await challengeOf(pending.verifier!),
      code_challenge_method: "S256",
    });
    expect(pending.verifier!.length).toBeGreaterThanOrEqual(43);
    expect(pending.returnTo).toBe("/supply/");
  });

  it("refuses an origin Keeper does not allow, saying what to configure", async () => {
    await expect(authorizationUrl(OIDC, "http://evil.test", "/", memoryStorage())).rejects.toThrow(
      /keeper.auth.oidc.redirect_uris/,
    );
  });

  it("computes the S256 challenge of RFC 7636's example", async () => {
    expect(await challengeOf("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
  });

  it("trades the code only when the state is the one this tab sent, once", async () => {
    const storage = memoryStorage();
    await authorizationUrl(OIDC, "http://127.0.0.1:8080", "/supply/", storage);
    const pending = JSON.parse(storage.getItem("lorebase.oidc")!) as Record<string, string>;
    const sent: unknown[] = [];
    const api = {
      POST: (_path: string, init: { body: unknown }) => {
        sent.push(init.body);
        return Promise.resolve({ data: { csrf_token: "t" }, response: new Response(null, { status: 201 }) });
      },
    } as unknown as Keeper;
    await expect(completeSignIn(api, "?code=c1&state=forged", storage)).rejects.toThrow(/not started here/);
    expect(sent).toEqual([]);
    // The pending sign-in is gone after one use, so a replay with the right state fails too.
    await expect(completeSignIn(api, `?code=c1&state=${pending.state}`, storage)).rejects.toThrow(/not started here/);

    await authorizationUrl(OIDC, "http://127.0.0.1:8080", "/supply/", storage);
    const again = JSON.parse(storage.getItem("lorebase.oidc")!) as Record<string, string>;
    const done = await completeSignIn(api, `?code=c2&state=${again.state}`, storage);
    expect(done.returnTo).toBe("/supply/");
    expect(sent).toEqual([
      {
        code: "c2",
        code_verifier: again.verifier,
        redirect_uri: "http://127.0.0.1:8080/auth/callback",
        nonce: again.nonce,
      },
    ]);
  });

  it("says when the issuer refused", async () => {
    const api = {} as Keeper;
    await expect(completeSignIn(api, "?error=access_denied&error_description=no", memoryStorage())).rejects.toThrow(
      /access_denied: no/,
    );
  });
});
