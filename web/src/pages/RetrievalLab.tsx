// The Retrieval lab (/<domain>/lab): one question, two parameter sets side by side (A and B), a
// search or a context pack of each, and how their Records overlap. Both read the head of the
// branch on screen (search and context packs take no `at`).
import { useMemo, useState } from "react";
import { Link } from "react-router-dom";

import { ApiProblem, asProblem } from "../api/client";
import { ProblemView } from "../components/Problem";
import { pointSearch, useReadPoint } from "../components/readPoint";
import { useDomain } from "../components/schema";
import { embed } from "../explore/guide";
import { DEFAULT_PACK, DEFAULT_SEARCH, type PackParams, type SearchMode, type SearchParams } from "../lab/bodies";
import { overlap, overlapSummary } from "../lab/overlap";
import { PackParamsForm, SearchParamsForm } from "../lab/ParamsForm";
import type { RunResult } from "../lab/results";
import { ResultView } from "../lab/ResultView";
import { runPack, runSearch, type Embedder, type LabMode, type LabRun } from "../lab/run";
import { useSession } from "../session";

type Outcome = { result: RunResult; problem: null } | { result: null; problem: ApiProblem };

const SIDES = ["A", "B"] as const;

function outcome(settled: PromiseSettledResult<RunResult>): Outcome {
  if (settled.status === "fulfilled") return { result: settled.value, problem: null };
  const error: unknown = settled.reason;
  return { result: null, problem: asProblem(error) };
}

export function RetrievalLab() {
  const { config, credential, api } = useSession();
  const { domain, schema } = useDomain();
  const point = useReadPoint();
  const [question, setQuestion] = useState("");
  const [mode, setMode] = useState<LabMode>("search");
  const [packLens, setPackLens] = useState("");
  const [search, setSearch] = useState<Record<string, SearchParams>>({
    A: DEFAULT_SEARCH,
    B: { ...DEFAULT_SEARCH, limit: 5 },
  });
  const [pack, setPack] = useState<Record<string, PackParams>>({
    A: DEFAULT_PACK,
    B: { ...DEFAULT_PACK, budgetTokens: 4000 },
  });
  const [outcomes, setOutcomes] = useState<Outcome[] | null>(null);
  const [running, setRunning] = useState(false);

  const kindNames = useMemo(() => schema.kinds.map((kind) => kind.name), [schema]);
  const lenses = schema.lenses.map((lens) => lens.name);
  const model = typeof schema.search.embedding?.model === "string" ? schema.search.embedding.model : null;
  const guideUrl = config.mock ? null : config.guideUrl;
  // Semantic and hybrid need a query vector of the schema's model, which only Guide's /embed makes here.
  const embedder: Embedder | null =
    model && guideUrl
      ? async (text) => {
          const found = await embed(guideUrl, credential, text);
          if (found.model !== model) {
            throw new ApiProblem(422, {
              title: "Another embedding model",
              detail: `Guide embeds with ${found.model}, the schema's vectors are ${model}`,
              code: "model_mismatch",
            });
          }
          return found.vector;
        }
      : null;
  const modes: SearchMode[] = embedder ? ["lexical", "semantic", "hybrid"] : ["lexical"];
  const explore = config.guideUrl !== null || config.mock;
  const recordSearch = pointSearch({ branch: point.branch, at: null });

  const run = async (text: string) => {
    if (!text.trim()) return;
    setRunning(true);
    const labRun: LabRun = { api, domain, branch: point.branch, question: text.trim(), embedder };
    const settled = await Promise.allSettled(
      SIDES.map((side) =>
        mode === "search"
          ? runSearch(labRun, search[side] ?? DEFAULT_SEARCH)
          : runPack(labRun, packLens, pack[side] ?? DEFAULT_PACK),
      ),
    );
    setOutcomes(settled.map(outcome));
    setRunning(false);
  };

  const [a, b] = outcomes ?? [];
  const shared = overlap(a?.result?.items.map((i) => i.ref) ?? [], b?.result?.items.map((i) => i.ref) ?? []);

  return (
    <>
      <h1>Retrieval lab</h1>
      <p className="lead">
        Compare two searches or two context packs of one question, as an agent would read them, at the head of
        {point.branch ? ` branch ${point.branch}` : " the default branch"}.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void run(question);
        }}
      >
        <div className="filters">
          <label>
            Question
            <input size={60} value={question} onChange={(e) => setQuestion(e.target.value)} />
          </label>
          <div className="tabs" role="tablist" aria-label="What to compare">
            {(["search", "context"] as const).map((tab) => (
              <button key={tab} type="button" role="tab" aria-selected={mode === tab} onClick={() => setMode(tab)}>
                {tab === "search" ? "Search" : "Context pack"}
              </button>
            ))}
          </div>
          {mode === "context" && (
            <label>
              Lens
              <select value={packLens} onChange={(e) => setPackLens(e.target.value)}>
                <option value="">(none)</option>
                {lenses.map((lens) => (
                  <option key={lens}>{lens}</option>
                ))}
              </select>
            </label>
          )}
          <button type="submit" className="primary" disabled={running || !question.trim()}>
            Run both
          </button>
          {explore && question.trim() && (
            <Link
              to={`/${encodeURIComponent(domain)}/explore${pointSearch({ branch: point.branch, at: null }, { q: question.trim() })}`}
            >
              Ask the guide
            </Link>
          )}
        </div>
      </form>
      {schema.examples.length > 0 && (
        <div className="filters" role="group" aria-label="Example questions">
          {schema.examples.map((example) => (
            <button key={example} type="button" onClick={() => setQuestion(example)}>
              {example}
            </button>
          ))}
        </div>
      )}
      <div style={{ display: "grid", gridTemplateColumns: "minmax(0, 1fr) minmax(0, 1fr)", gap: 24 }}>
        {SIDES.map((side) =>
          mode === "search" ? (
            <SearchParamsForm
              key={side}
              side={side}
              value={search[side] ?? DEFAULT_SEARCH}
              onChange={(next) => setSearch((old) => ({ ...old, [side]: next }))}
              modes={modes}
              kinds={kindNames}
              lenses={lenses}
            />
          ) : (
            <PackParamsForm
              key={side}
              side={side}
              value={pack[side] ?? DEFAULT_PACK}
              onChange={(next) => setPack((old) => ({ ...old, [side]: next }))}
            />
          ),
        )}
      </div>
      {running && <p className="muted">Running…</p>}
      {outcomes && (
        <>
          <p role="status">{overlapSummary(shared)}</p>
          <div style={{ display: "grid", gridTemplateColumns: "minmax(0, 1fr) minmax(0, 1fr)", gap: 24 }}>
            {outcomes.map((found, index) => {
              const side = SIDES[index] ?? "A";
              return found.result ? (
                <ResultView key={side} side={side} result={found.result} both={shared.both} search={recordSearch} />
              ) : (
                <section key={side} aria-label={`Result ${side}`}>
                  <ProblemView problem={found.problem} />
                </section>
              );
            })}
          </div>
        </>
      )}
    </>
  );
}
