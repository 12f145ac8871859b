// One read of Keeper as React state: loading, its data or its ApiProblem; re-read when a key
// (the request's inputs) changes.
import { useEffect, useState } from "react";

import { ApiProblem } from "./client";

export interface Read<T> {
  data: T | null;
  problem: ApiProblem | null;
  loading: boolean;
  reload(): void;
}

export function useRead<T>(load: () => Promise<T>, key: unknown[]): Read<T> {
  const [state, setState] = useState<{ data: T | null; problem: ApiProblem | null; loading: boolean }>(
    { data: null, problem: null, loading: true },
  );
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let cancelled = false;
    setState((old) => ({ ...old, loading: true }));
    load().then(
      (found) => !cancelled && setState({ data: found, problem: null, loading: false }),
      (error: unknown) =>
        !cancelled &&
        setState({
          data: null,
          problem: error instanceof ApiProblem ? error : new ApiProblem(0, { title: String(error) }),
          loading: false,
        }),
    );
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...key, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}
