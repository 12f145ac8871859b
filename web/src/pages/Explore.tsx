// Explore (/<domain>/explore): questions to Guide, or to the scripted explorations of the mock
// API; ?q= pre-fills the question (the Retrieval lab's "Ask the guide").
import { useCallback } from "react";
import { useSearchParams } from "react-router-dom";

import { useReadPoint } from "../components/readPoint";
import { useDomain } from "../components/schema";
import { EXPLORE_MAX_STEPS, EXPLORE_TIMEOUT_MS } from "../config";
import { ExplorePanel } from "../explore/ExplorePanel";
import { explore } from "../explore/guide";
import { mockExplore } from "../explore/mock";
import type { EventSource } from "../explore/useExploration";
import { useSession } from "../session";

export function Explore() {
  const { config, credential, api } = useSession();
  const { domain, schema, kinds } = useDomain();
  const point = useReadPoint();
  const [params] = useSearchParams();
  const { guideUrl, mock } = config;
  const branch = point.branch;

  const source = useCallback<EventSource>(
    (question, signal) => {
      const request = { domain, branch, question, maxSteps: EXPLORE_MAX_STEPS, signal };
      if (mock) return mockExplore({ ...request, api, schema });
      return explore({ ...request, guideUrl: guideUrl ?? "", credential });
    },
    [mock, api, schema, guideUrl, credential, domain, branch],
  );

  return (
    <>
      <h1>Explore</h1>
      {!guideUrl && !mock ? (
        <p role="status">
          Explore needs Guide, the optional exploration assistant: set <code>keeper.web.guide_url</code> to its address
          (docs/web.md).
        </p>
      ) : (
        <>
          <p className="lead">
            Ask a question about {domain}: {mock ? "a scripted exploration of the mock API" : "Guide"} reads the graph
            {branch ? ` on branch ${branch}` : ""} with your grants, step by step, and cites the Records it read.
            {point.at ? " Explorations read the head of the branch, not the Revision on screen." : ""}
          </p>
          <ExplorePanel
            source={source}
            timeoutMs={EXPLORE_TIMEOUT_MS}
            domain={domain}
            kinds={kinds}
            examples={schema.examples}
            point={point}
            initialQuestion={params.get("q") ?? ""}
          />
        </>
      )}
    </>
  );
}
