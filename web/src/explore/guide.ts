// Calls of Guide (guide.md, "Endpoints"). Guide takes the caller's own credential and forwards it
// to Keeper: a Bearer header in token mode, the session cookie and X-CSRF-Token in session mode.
// Nothing else is sent: X-Lorebase-Client is Keeper's header, not in Guide's CORS allow-list.
import { ApiProblem, retryAfter, type Credential } from "../api/client";
import { exploreEvent, type ExploreEvent } from "./events";
import { readSse } from "./stream";

export interface ExploreRequest {
  guideUrl: string;
  credential: Credential;
  domain: string;
  /** The branch on screen; null for the default one. */
  branch: string | null;
  question: string;
  maxSteps: number;
  signal: AbortSignal;
}

export function guideHeaders(credential: Credential): Record<string, string> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (credential.mode === "token" && credential.token) headers.Authorization = `Bearer ${credential.token}`;
  if (credential.mode === "session" && credential.csrf) headers["X-CSRF-Token"] = credential.csrf;
  return headers;
}

function init(credential: Credential, body: unknown, signal?: AbortSignal): RequestInit {
  return {
    method: "POST",
    headers: guideHeaders(credential),
    // The session cookie reaches Guide only when it is on the app's site (session mode needs that).
    credentials: credential.mode === "session" ? "include" : "same-origin",
    body: JSON.stringify(body),
    signal,
  };
}

/** The ApiProblem of a refusal before the stream: its problem document and Retry-After. */
async function refusal(answer: Response): Promise<ApiProblem> {
  let body: unknown = null;
  try {
    body = await answer.json();
  } catch {
    // Not a problem document (a proxy's page): the status says enough.
  }
  return new ApiProblem(answer.status, body, retryAfter(answer.headers));
}

/** The body POST /explore takes (bodies.py: no other member is allowed). */
export function exploreBody(request: Pick<ExploreRequest, "domain" | "branch" | "question" | "maxSteps">) {
  return {
    domain: request.domain,
    branch: request.branch,
    question: request.question,
    max_steps: request.maxSteps,
  };
}

/** The events of one exploration, each as it arrives; aborting `signal` closes the stream. */
export async function* explore(request: ExploreRequest): AsyncGenerator<ExploreEvent> {
  let answer: Response;
  try {
    answer = await fetch(`${request.guideUrl}/explore`, {
      ...init(request.credential, exploreBody(request), request.signal),
      headers: { ...guideHeaders(request.credential), Accept: "text/event-stream" },
    });
  } catch (error) {
    if (request.signal.aborted) throw error;
    throw new ApiProblem(0, { title: "Guide did not answer", detail: String(error), code: "guide_unreachable" });
  }
  if (!answer.ok) throw await refusal(answer);
  if (!answer.body) throw new ApiProblem(502, { title: "Guide answered no stream", code: "no_stream" });
  for await (const raw of readSse(answer.body)) {
    const event = exploreEvent(raw);
    if (event) yield event;
  }
}

/** The query vector of `text` from Guide's POST /embed (mode query), with the model it names. */
export async function embed(
  guideUrl: string,
  credential: Credential,
  text: string,
  signal?: AbortSignal,
): Promise<{ model: string; vector: number[] }> {
  const answer = await fetch(`${guideUrl}/embed`, init(credential, { text, mode: "query" }, signal));
  if (!answer.ok) throw await refusal(answer);
  const body = (await answer.json()) as { model?: unknown; vector?: unknown };
  const vector = Array.isArray(body.vector) ? body.vector.filter((n): n is number => typeof n === "number") : [];
  return { model: typeof body.model === "string" ? body.model : "", vector };
}
