// The Domain's Relation names, which fix the Canvas colours; one array per schema, so the Canvas
// does not redraw on every render.
import { useMemo } from "react";

import { useDomain } from "../components/schema";

export function useDomainRelations(): string[] {
  const { schema } = useDomain();
  return useMemo(() => schema.relations.map((r) => r.name), [schema]);
}
