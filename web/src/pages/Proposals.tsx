// The Domain's Proposals, oldest first as Keeper lists them: filtered by status, by those the
// caller may review (assigned=me) and those the caller opened, a page at a time (Next follows
// Keeper's cursor). The filters live in the URL.
import { Link, useSearchParams } from "react-router-dom";

import { useProposals } from "../api/queries";
import { ProblemView } from "../components/Problem";
import { useDomain } from "../components/schema";
import { approvalState } from "../proposals/blockers";
import { shortTime } from "../proposals/format";
import { listQuery, readFilters, STATUSES, writeFilters, type ListFilters } from "../proposals/listFilters";
import { StatusBadge } from "../proposals/StatusBadge";

const PAGE = 50;

export function Proposals() {
  const { domain } = useDomain();
  const [params, setParams] = useSearchParams();
  const filters = readFilters(params);
  const read = useProposals(domain, listQuery(filters, PAGE));
  const change = (next: Partial<ListFilters>) => setParams(writeFilters({ ...filters, cursor: null, ...next }));
  const page = read.data;
  return (
    <section>
      <h1>Proposals</h1>
      <div className="filters" role="group" aria-label="Filters">
        <label>
          Status
          <select value={filters.status} onChange={(e) => change({ status: e.target.value as ListFilters["status"] })}>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>
            <input
              type="checkbox"
              checked={filters.assignedToMe}
              onChange={(e) => change({ assignedToMe: e.target.checked })}
            />{" "}
            Assigned to me
          </span>
        </label>
        <label>
          <span>
            <input
              type="checkbox"
              checked={filters.createdByMe}
              onChange={(e) => change({ createdByMe: e.target.checked })}
            />{" "}
            Created by me
          </span>
        </label>
      </div>
      {filters.assignedToMe && <p className="hint">Assigned to me: open Proposals you may review and did not open.</p>}
      {read.problem && <ProblemView problem={read.problem} />}
      {read.loading && !page && <p className="loading">Loading the Proposals…</p>}
      {page && page.proposals.length === 0 && <p className="muted">No Proposals match.</p>}
      {page && page.proposals.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Id</th>
                <th scope="col">Status</th>
                <th scope="col">Author</th>
                <th scope="col">Target</th>
                <th scope="col">Approval</th>
                <th scope="col" className="num">
                  Open Conflicts
                </th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {page.proposals.map((p) => (
                <tr key={p.id}>
                  <td className="plain">{p.title}</td>
                  <td>
                    <Link to={`/${encodeURIComponent(domain)}/proposals/${encodeURIComponent(p.id)}`}>
                      <code>{p.id}</code>
                    </Link>
                  </td>
                  <td>
                    <StatusBadge status={p.status} />
                  </td>
                  <td>{p.created_by}</td>
                  <td>
                    <code>{p.target_ref}</code>
                  </td>
                  <td>{approvalState(p.approval)}</td>
                  <td className="num">{p.conflicts.open}</td>
                  <td>
                    <time dateTime={p.updated_at}>{shortTime(p.updated_at)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="pager">
        {filters.cursor && (
          <button type="button" onClick={() => change({})}>
            First page
          </button>
        )}
        {page?.next_cursor && (
          <button type="button" onClick={() => change({ cursor: page.next_cursor })}>
            Next
          </button>
        )}
      </div>
    </section>
  );
}
