// One exploration as React state: the events so far, whether it runs, how it ended (done, Stop,
// the panel's timeout, a refusal) and, after a 429, until when asking stays disabled.
import { useCallback, useEffect, useRef, useState } from "react";

import { ApiProblem } from "../api/client";
import type { ExploreEvent } from "./events";
import { retryAt } from "./refusals";

/** Starts the events of one exploration of `question`; aborting `signal` ends them. */
export type EventSource = (question: string, signal: AbortSignal) => AsyncIterable<ExploreEvent>;

export type Ending = "done" | "stopped" | "timeout" | "refused" | "failed" | null;

export interface Exploration {
  events: ExploreEvent[];
  running: boolean;
  ending: Ending;
  problem: ApiProblem | null;
  /** Epoch ms until which asking is disabled (a 429's Retry-After), or null. */
  blockedUntil: number | null;
  ask: (question: string) => void;
  stop: () => void;
}

export function useExploration(source: EventSource, timeoutMs: number): Exploration {
  const [events, setEvents] = useState<ExploreEvent[]>([]);
  const [running, setRunning] = useState(false);
  const [ending, setEnding] = useState<Ending>(null);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [blockedUntil, setBlockedUntil] = useState<number | null>(null);
  const current = useRef<{ controller: AbortController; why: Ending } | null>(null);

  const stop = useCallback(() => {
    const run = current.current;
    if (!run) return;
    run.why = "stopped";
    run.controller.abort();
  }, []);

  // Leaving the screen stops the exploration, so Guide stops working on it.
  useEffect(() => () => current.current?.controller.abort(), []);

  const ask = useCallback(
    (question: string) => {
      current.current?.controller.abort();
      const run = { controller: new AbortController(), why: null as Ending };
      current.current = run;
      setEvents([]);
      setProblem(null);
      setEnding(null);
      setRunning(true);
      const timer = setTimeout(() => {
        run.why = "timeout";
        run.controller.abort();
      }, timeoutMs);
      void (async () => {
        let end: Ending = "done";
        try {
          for await (const event of source(question, run.controller.signal)) {
            if (current.current !== run) return;
            setEvents((old) => [...old, event]);
          }
        } catch (error) {
          if (current.current !== run) return;
          if (run.controller.signal.aborted) {
            end = run.why ?? "stopped";
          } else if (error instanceof ApiProblem) {
            end = "refused";
            setProblem(error);
            setBlockedUntil(retryAt(error, Date.now()));
          } else {
            end = "failed";
            setProblem(new ApiProblem(0, { title: "The stream broke off", detail: String(error), code: "stream" }));
          }
        } finally {
          clearTimeout(timer);
        }
        if (current.current !== run) return;
        current.current = null;
        setEnding(end);
        setRunning(false);
      })();
    },
    [source, timeoutMs],
  );

  return { events, running, ending, problem, blockedUntil, ask, stop };
}
