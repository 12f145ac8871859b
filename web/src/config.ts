// The runtime configuration: a JSON file Keeper serves beside the app (GET /web-config.json,
// docs/web.md), so one build works against any Keeper. Nothing here is baked into the build.

export type AuthMode = "none" | "token" | "session";

export interface WebConfig {
  /** Keeper's origin; "" for the app's own origin (Keeper serves the app). */
  keeperUrl: string;
  /** Guide's origin or a path on the app's origin; null hides Explore. */
  guideUrl: string | null;
  /** How the app signs in: none (auth mode none), token (an API key kept in memory) or session. */
  authMode: AuthMode;
  /** The sign-in takes an API key (auth modes api_key, api_key+oidc). */
  apiKeys: boolean;
  /** The sign-in offers the OIDC issuer's code flow (oidc modes, with sessions). */
  oidc: boolean;
  /** Play scripted explorations instead of calling Guide (the mock API, docs/web.md). */
  mock: boolean;
}

const MODES: readonly AuthMode[] = ["none", "token", "session"];

export function parseConfig(raw: unknown): WebConfig {
  if (typeof raw !== "object" || raw === null) throw new Error("web-config.json is not an object");
  const value = raw as Record<string, unknown>;
  const mode = value.authMode;
  if (typeof mode !== "string" || !MODES.includes(mode as AuthMode)) {
    throw new Error(`web-config.json: authMode must be one of ${MODES.join(", ")}`);
  }
  const keeperUrl = typeof value.keeperUrl === "string" ? value.keeperUrl.replace(/\/$/, "") : "";
  const guide = value.guideUrl;
  return {
    keeperUrl,
    guideUrl: typeof guide === "string" && guide !== "" ? guide.replace(/\/$/, "") : null,
    authMode: mode as AuthMode,
    apiKeys: value.apiKeys !== false,
    oidc: value.oidc === true,
    mock: value.mock === true,
  };
}

export async function loadConfig(): Promise<WebConfig> {
  const answer = await fetch("/web-config.json", { cache: "no-store" });
  if (!answer.ok) throw new Error(`GET /web-config.json answered ${answer.status}`);
  return parseConfig(await answer.json());
}

/** The panel's own limits of Explore (guide.md), overridable at build time. */
export const EXPLORE_MAX_STEPS = Number(import.meta.env.VITE_EXPLORE_MAX_STEPS ?? 6);
export const EXPLORE_TIMEOUT_MS = Number(import.meta.env.VITE_EXPLORE_TIMEOUT_MS ?? 150_000);
