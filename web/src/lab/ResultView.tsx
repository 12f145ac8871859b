// The result of one side of the lab: its Records (those the other side also returned marked),
// and for a context pack its budget per section. Titles are graph data: plain text only, and
// refs become links only through linkableRef.
import type { Schemas } from "../api/client";
import { RecordLink } from "../components/RecordLink";
import type { RunResult } from "./results";

export function BudgetView(props: { budget: Schemas["Budget"] }) {
  const { budget } = props;
  const sections = Object.entries(budget.sections);
  const omitted = Object.keys(budget.omitted);
  return (
    <div>
      <p>
        {budget.used_tokens} of {budget.limit_tokens} tokens ({budget.chars_per_token} characters per token)
        {budget.over_budget && <span className="badge warn">over budget</span>}{" "}
        {budget.capped && <span className="badge warn">capped</span>}
      </p>
      <table>
        <caption className="muted">Tokens per section</caption>
        <thead>
          <tr>
            <th scope="col">Section</th>
            <th scope="col" className="num">
              Tokens
            </th>
          </tr>
        </thead>
        <tbody>
          {sections.map(([section, tokens]) => (
            <tr key={section}>
              <td>{section}</td>
              <td className="num">{tokens}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {budget.trimmed.length > 0 && (
        <p className="muted">Trimmed: {budget.trimmed.map((step) => `${step.step} (${step.count})`).join(", ")}</p>
      )}
      {omitted.length > 0 && <p className="muted">Omitted: {omitted.join(", ")}</p>}
    </div>
  );
}

export function ResultView(props: { side: string; result: RunResult; both: ReadonlySet<string>; search: string }) {
  const { result } = props;
  return (
    <section aria-labelledby={`result-${props.side}`}>
      <h2 id={`result-${props.side}`}>Result {props.side}</h2>
      {result.mode === "search" && (
        <p className="muted">
          {result.answer.mode} search of {result.answer.kinds.join(", ") || "no Kind"}
          {result.answer.corrected?.length
            ? `; corrected ${result.answer.corrected.map((c) => `${c.from} to ${c.to}`).join(", ")}`
            : ""}
        </p>
      )}
      {result.mode === "search" &&
        result.answer.notes?.map((note, i) => (
          <p key={i} className="plain muted">
            {note}
          </p>
        ))}
      {result.mode === "context" && <BudgetView budget={result.answer.budget} />}
      {result.items.length === 0 ? (
        <p>No Records.</p>
      ) : (
        <ol className="cards">
          {result.items.map((item, index) => (
            <li key={`${index}-${item.ref}`}>
              {props.both.has(item.ref) && <span className="badge">in both</span>}{" "}
              <RecordLink refText={item.ref} search={props.search} /> <span className="plain">{item.title}</span>{" "}
              <span className="muted">{item.detail}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
