// The Domain's schema at the read point, shared by every screen of the Domain (Kinds to link,
// Attributes to filter on, the example questions of Explore and the Retrieval lab).
import { createContext, useContext } from "react";
import type { ReactNode } from "react";

import { data, type Schemas } from "../api/client";
import { useRead } from "../api/useRead";
import { useApi } from "../session";
import { ProblemView } from "./Problem";
import { pointQuery, useReadPoint } from "./readPoint";

export type DomainSchema = Schemas["SchemaAnswer"];
export type KindSchema = DomainSchema["kinds"][number];

export interface DomainView {
  domain: string;
  schema: DomainSchema;
  kinds: ReadonlySet<string>;
  kind(name: string): KindSchema | undefined;
}

const DomainContext = createContext<DomainView | null>(null);

export function useDomain(): DomainView {
  const found = useContext(DomainContext);
  if (found === null) throw new Error("useDomain outside DomainProvider");
  return found;
}

export function DomainProvider(props: { domain: string; children: ReactNode }) {
  const api = useApi();
  const point = useReadPoint();
  const read = useRead(
    () =>
      data(
        api.GET("/api/v1/domains/{domain}/schema", {
          params: { path: { domain: props.domain }, query: pointQuery(point) },
        }),
      ) as Promise<DomainSchema>,
    [api, props.domain, point.branch, point.at],
  );
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
