// The Domain's schema at the read point, shared by every screen of the Domain (Kinds to link,
// Attributes to filter on, the example questions of Explore and the Retrieval lab); its
// provider, which reads it, is DomainProvider.tsx.
import { createContext, useContext } from "react";

import type { Schemas } from "../api/client";

export type DomainSchema = Schemas["SchemaAnswer"];
export type KindSchema = DomainSchema["kinds"][number];

export interface DomainView {
  domain: string;
  schema: DomainSchema;
  kinds: ReadonlySet<string>;
  kind: (name: string) => KindSchema | undefined;
}

export const DomainContext = createContext<DomainView | null>(null);

export function useDomain(): DomainView {
  const found = useContext(DomainContext);
  if (found === null) throw new Error("useDomain outside DomainProvider");
  return found;
}
