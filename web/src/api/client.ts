// Keeper's API, typed by its OpenAPI document (schema.d.ts is generated from openapi.json by
// `npm run api`; scripts/web-api.py refreshes that). Every call goes through `keeper()`, which adds
// the credential of the sign-in (a Bearer key in token mode; the cookie and X-CSRF-Token in
// session mode) and turns a problem document into an `ApiProblem`.
import createClient, { type Middleware } from "openapi-fetch";

import type { components, paths } from "./schema";

export type Schemas = components["schemas"];

export interface Credential {
  mode: "none" | "token" | "session";
  token?: string;
  csrf?: string;
}

/** A refusal of Keeper or Guide: its status, code and the problem document's words. */
export class ApiProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly retryAfter: number | null;

  constructor(status: number, body: unknown, retryAfter: number | null = null) {
    const doc = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    const title = typeof doc.title === "string" ? doc.title : `HTTP ${status}`;
    const detail = typeof doc.detail === "string" ? doc.detail : "";
    super(detail ? `${title}: ${detail}` : title);
    this.status = status;
    this.code = typeof doc.code === "string" ? doc.code : `http-${status}`;
    this.title = title;
    this.detail = detail;
    this.retryAfter = retryAfter;
  }
}

/** `error` as an ApiProblem: itself when it is one, else status 0 (Keeper did not answer) with its words. */
export function asProblem(error: unknown): ApiProblem {
  return error instanceof ApiProblem ? error : new ApiProblem(0, { title: String(error) });
}

/** Marks the app's own requests, so that trace_all leaves browsing out (agent-trace.md). */
export const CLIENT_HEADER = { "X-Lorebase-Client": "web" };

export function credentialHeaders(credential: Credential, method = "GET"): Record<string, string> {
  const headers: Record<string, string> = { ...CLIENT_HEADER };
  if (credential.mode === "token" && credential.token) {
    headers.Authorization = `Bearer ${credential.token}`;
  }
  if (credential.mode === "session" && credential.csrf && !["GET", "HEAD"].includes(method)) {
    headers["X-CSRF-Token"] = credential.csrf;
  }
  return headers;
}

export type Keeper = ReturnType<typeof createClient<paths>>;

export function keeper(baseUrl: string, credential: Credential): Keeper {
  const client = createClient<paths>({
    baseUrl,
    credentials: credential.mode === "session" ? "include" : "same-origin",
  });
  const auth: Middleware = {
    onRequest({ request }) {
      for (const [name, value] of Object.entries(credentialHeaders(credential, request.method))) {
        request.headers.set(name, value);
      }
      return request;
    },
  };
  client.use(auth);
  return client;
}

/** The seconds of a Retry-After header, or null (absent, a date, or not positive). */
export function retryAfter(headers: Headers): number | null {
  const seconds = Number(headers.get("Retry-After"));
  return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

/** The data of an openapi-fetch answer, or the ApiProblem of its refusal. */
export async function data<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data: body, error, response } = await call;
  if (!response.ok || body === undefined) {
    throw new ApiProblem(response.status, error, retryAfter(response.headers));
  }
  return body;
}
