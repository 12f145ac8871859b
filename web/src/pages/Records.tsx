// A Kind's table: filters, sort and the cursor in the URL (records/filters.ts), read with one
// POST /query at the read point, and a sentence saying what the table shows.
import { useState } from "react";
import type { FormEvent } from "react";
import { Link, useParams, useSearchParams } from "react-router-dom";

import { ApiProblem, type Schemas } from "../api/client";
import { useRecordQuery } from "../api/queries";
import { ProblemView } from "../components/Problem";
import { ReadPointPicker } from "../components/ReadPointPicker";
import { pointQuery, pointSearch, useReadPoint } from "../components/readPoint";
import { useDomain } from "../components/schema";
import { describeTable, OPERATORS, queryBody, readTable, writeTable, isOperator } from "../records/filters";
import type { Filter } from "../records/filters";
import { ValueText } from "../records/values";

const PAGE = 50;
const COLUMNS = 8;

type QueryRecord = NonNullable<Schemas["QueryAnswer"]["records"]>[number];

export function Records() {
  const { domain, kind: kindOf } = useDomain();
  const { kind: kindName = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const point = useReadPoint();
  const kind = kindOf(kindName);
  const state = readTable(params);
  const body = queryBody(kindName, kind, state, pointQuery(point), PAGE);
  const read = useRecordQuery(domain, body);
  if (!kind) {
    return (
      <ProblemView
        problem={
          new ApiProblem(404, {
            title: "Unknown Kind",
            detail: `Kind '${kindName}' is not in Domain '${domain}'.`,
            code: "kind-not-found",
          })
        }
      />
    );
  }
  const titleAttr = typeof kind.title === "string" ? kind.title : null;
  const columns = kind.attributes.map((a) => a.name).slice(0, COLUMNS);
  const keyName = (k: QueryRecord) => k.key ?? "";
  const records = (read.data?.records ?? []) as QueryRecord[];
  const next = read.data?.next_cursor ?? null;

  function sortBy(attr: string) {
    const desc = state.sort === attr ? !state.desc : false;
    setParams(writeTable({ ...state, sort: attr, desc, cursor: null }, params));
  }

  return (
    <section>
      <h1>{kindName}</h1>
      {kind.description && <p className="lead">{kind.description}</p>}
      <ReadPointPicker />
      <FilterForm
        key={JSON.stringify(state.filters)}
        attributes={kind.attributes.map((a) => a.name)}
        filters={state.filters}
        onApply={(filters) => setParams(writeTable({ ...state, filters, cursor: null }, params))}
      />
      <p className="sentence" aria-live="polite">
        {describeTable(kindName, state)}
      </p>
      {read.problem && <ProblemView problem={read.problem} />}
      <div className="table-wrap">
        <table aria-label={`${kindName} Records`}>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Title</th>
              {columns.map((c) => (
                <th
                  key={c}
                  scope="col"
                  aria-sort={state.sort === c ? (state.desc ? "descending" : "ascending") : "none"}
                >
                  <button type="button" className="link" onClick={() => sortBy(c)} title={`Sort by ${c}`}>
                    {c}
                    {state.sort === c ? (state.desc ? " ▼" : " ▲") : ""}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {records.map((r) => (
              <tr key={r.ref}>
                <td>
                  <Link to={`${encodeURIComponent(keyName(r))}${pointSearch(point)}`}>{keyName(r)}</Link>
                </td>
                <td>
                  <ValueText value={titleAttr ? r.values[titleAttr] : null} />
                </td>
                {columns.map((c) => (
                  <td key={c}>
                    <ValueText value={r.values[c]} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {read.loading && <p className="loading">Loading…</p>}
      {!read.loading && records.length === 0 && !read.problem && <p>No Record matches.</p>}
      <div className="pager">
        {state.cursor && (
          <button type="button" onClick={() => setParams(writeTable({ ...state, cursor: null }, params))}>
            First page
          </button>
        )}
        {next && (
          <button type="button" onClick={() => setParams(writeTable({ ...state, cursor: next }, params))}>
            Next page
          </button>
        )}
      </div>
    </section>
  );
}

function FilterForm(props: { attributes: string[]; filters: Filter[]; onApply(filters: Filter[]): void }) {
  const [rows, setRows] = useState<Filter[]>(props.filters);
  const first = props.attributes[0] ?? "";

  function submit(event: FormEvent) {
    event.preventDefault();
    props.onApply(rows.filter((r) => r.attr && (r.op === "is_null" || r.value !== "")));
  }
  function change(index: number, patch: Partial<Filter>) {
    setRows(rows.map((r, i) => (i === index ? { ...r, ...patch } : r)));
  }
  return (
    <form className="filters" onSubmit={submit} aria-label="Filters">
      {rows.map((row, index) => (
        <div key={index} className="filters">
          <label>
            Attribute
            <select value={row.attr} onChange={(e) => change(index, { attr: e.target.value })}>
              {props.attributes.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </label>
          <label>
            Operator
            <select
              value={row.op}
              onChange={(e) => isOperator(e.target.value) && change(index, { op: e.target.value })}
            >
              {Object.entries(OPERATORS).map(([op, words]) => (
                <option key={op} value={op}>
                  {words}
                </option>
              ))}
            </select>
          </label>
          <label>
            Value
            <input value={row.value} onChange={(e) => change(index, { value: e.target.value })} />
          </label>
          <button type="button" onClick={() => setRows(rows.filter((_, i) => i !== index))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => setRows([...rows, { attr: first, op: "eq", value: "" }])}>
        Add filter
      </button>
      <button type="submit" className="primary">
        Apply
      </button>
    </form>
  );
}
