// Reads the Domain's schema at the read point for every screen of the Domain (schema.ts).
import type { ReactNode } from "react";

import { useDomainSchema } from "../api/queries";
import { ProblemView } from "./Problem";
import { useReadPoint } from "./readPoint";
import { DomainContext, type DomainView } from "./schema";

export function DomainProvider(props: { domain: string; children: ReactNode }) {
  const read = useDomainSchema(props.domain, useReadPoint());
  if (read.problem) return <ProblemView problem={read.problem} />;
  if (!read.data) return <p className="loading">Loading the schema…</p>;
  const schema = read.data;
  const view: DomainView = {
    domain: props.domain,
    schema,
    kinds: new Set(schema.kinds.map((k) => k.name)),
    kind: (name) => schema.kinds.find((k) => k.name === name),
  };
  return <DomainContext.Provider value={view}>{props.children}</DomainContext.Provider>;
}
