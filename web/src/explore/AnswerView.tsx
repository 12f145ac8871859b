// The answer as plain text, its citations (links only through linkableRef) and the Canvas of the
// cited Records.
import { Link } from "react-router-dom";

import type { ReadPoint } from "../components/readPoint";
import { canvasHref, citationViews } from "./citations";
import type { ExploreEvent } from "./events";

export function AnswerView(props: {
  answer: Extract<ExploreEvent, { type: "answer" }>;
  domain: string;
  kinds: ReadonlySet<string>;
  point: ReadPoint;
}) {
  const { answer, domain, point } = props;
  const views = citationViews(answer.citations, domain, props.kinds, point);
  const canvas = canvasHref(views, domain, point);
  return (
    <section aria-labelledby="answer-heading">
      <h2 id="answer-heading">Answer</h2>
      <p className="plain">{answer.text}</p>
      {!answer.found && (
        <p className="muted">The graph did not hold the answer, or nothing shown to the agent supports one.</p>
      )}
      {views.length > 0 && (
        <>
          <h3>Citations</h3>
          <ul>
            {views.map((view, index) => (
              <li key={`${index}-${view.ref}`}>
                {view.href ? <Link to={view.href}>{view.ref}</Link> : <span className="plain">{view.ref}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {canvas && (
        <p>
          <Link to={canvas}>Show cited Records on the Canvas</Link>
        </p>
      )}
    </section>
  );
}
