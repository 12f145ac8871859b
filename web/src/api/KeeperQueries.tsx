// The cache of Keeper's answers (queries.ts), one per sign-in: a new credential (signing in or
// out, another caller) starts an empty cache, so no answer read with one key shows to another.
import { QueryClientProvider } from "@tanstack/react-query";
import { useMemo, type ReactNode } from "react";

import { useApi } from "../session";
import { makeQueryClient } from "./queries";

export function KeeperQueries(props: { children: ReactNode }) {
  const api = useApi();
  // eslint-disable-next-line react-hooks/exhaustive-deps -- a new cache for each credential, whose client is `api`
  const client = useMemo(() => makeQueryClient(), [api]);
  return <QueryClientProvider client={client}>{props.children}</QueryClientProvider>;
}
