// One side of the lab against Keeper: a search or a context pack of the question.
import { ApiProblem, data, type Keeper } from "../api/client";
import { contextBody, searchBody, type PackParams, type SearchParams } from "./bodies";
import { packItems, searchItems, type RunResult } from "./results";

export type LabMode = "search" | "context";

/** The query vector of semantic and hybrid searches, from the schema's embedding model. */
export type Embedder = (text: string) => Promise<number[]>;

export interface LabRun {
  api: Keeper;
  domain: string;
  branch: string | null;
  question: string;
  embedder: Embedder | null;
}

export async function runSearch(run: LabRun, params: SearchParams): Promise<RunResult> {
  let vector: number[] | null = null;
  if (params.mode !== "lexical") {
    if (!run.embedder)
      throw new ApiProblem(422, {
        title: "No query vector",
        detail: `${params.mode} search needs Guide's /embed`,
        code: "semantic_unavailable",
      });
    vector = await run.embedder(run.question);
  }
  const answer = await data(
    run.api.POST("/api/v1/domains/{domain}/search", {
      params: { path: { domain: run.domain } },
      body: searchBody(run.question, params, run.branch, vector),
    }),
  );
  return { mode: "search", answer, items: searchItems(answer) };
}

export async function runPack(run: LabRun, lens: string, params: PackParams): Promise<RunResult> {
  const answer = await data(
    run.api.POST("/api/v1/domains/{domain}/context", {
      params: { path: { domain: run.domain } },
      body: contextBody(run.question, lens, params, run.branch),
    }),
  );
  // format json was asked for; the markdown form is a string the lab does not compare.
  if (typeof answer === "string") throw new ApiProblem(406, { title: "A markdown pack", code: "not-json" });
  return { mode: "context", answer, items: packItems(answer) };
}
