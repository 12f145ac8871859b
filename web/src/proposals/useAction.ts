// One write of a Proposal screen (a review, a merge, a resolution): whether it is under way and
// the ApiProblem of its refusal, kept until the next try so the screen can show Keeper's detail.
import { useState } from "react";

import { ApiProblem } from "../api/client";

export interface Action {
  busy: boolean;
  problem: ApiProblem | null;
  run<T>(call: () => Promise<T>): Promise<T | null>;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  async function run<T>(call: () => Promise<T>): Promise<T | null> {
    setBusy(true);
    setProblem(null);
    try {
      return await call();
    } catch (error: unknown) {
      setProblem(error instanceof ApiProblem ? error : new ApiProblem(0, { title: String(error) }));
      return null;
    } finally {
      setBusy(false);
    }
  }
  return { busy, problem, run };
}
