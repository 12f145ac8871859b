// The Explore panel (guide.md, "The Explore panel in the web app"): a question, the Domain's
// example questions, Ask and Stop, each event as it arrives, the answer and its totals. The
// events come from `source`: Guide, or the scripted explorations of the mock API.
import { useEffect, useState } from "react";
import { Link } from "react-router-dom";

import { explainProblem } from "../components/explainProblem";
import type { ReadPoint } from "../components/readPoint";
import { AnswerView } from "./AnswerView";
import { tracePath } from "./citations";
import { EventView } from "./EventView";
import { explainGuideRefusal, secondsLeft } from "./refusals";
import { useExploration, type EventSource, type Exploration } from "./useExploration";

export interface ExplorePanelProps {
  source: EventSource;
  timeoutMs: number;
  domain: string;
  kinds: ReadonlySet<string>;
  examples: string[];
  point: ReadPoint;
  initialQuestion: string;
}

/** Re-renders every second while `until` lies ahead, and answers the seconds left. */
function useCountdown(until: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === null || until <= Date.now()) return;
    const tick = () => setNow(Date.now());
    // The clock of a new `until` starts now (a tick of its own, as setState belongs in callbacks).
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, 1000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [until]);
  return secondsLeft(until, now);
}

export function ExplorePanel(props: ExplorePanelProps) {
  const [question, setQuestion] = useState(props.initialQuestion);
  const run = useExploration(props.source, props.timeoutMs);
  const wait = useCountdown(run.blockedUntil);
  return <ExplorationView {...props} question={question} onQuestion={setQuestion} run={run} wait={wait} />;
}

export interface ExplorationViewProps {
  timeoutMs: number;
  domain: string;
  kinds: ReadonlySet<string>;
  examples: string[];
  point: ReadPoint;
  question: string;
  onQuestion: (text: string) => void;
  run: Exploration;
  /** Seconds until a 429's Retry-After has passed; 0 when asking is allowed. */
  wait: number;
}

/** The panel for a state of the exploration (rendered alone by the tests). */
export function ExplorationView(props: ExplorationViewProps) {
  const { question, run, wait } = props;
  const setQuestion = props.onQuestion;
  const session = run.events.find((event) => event.type === "session");
  const answer = run.events.find((event) => event.type === "answer");
  const canAsk = !run.running && wait === 0 && question.trim() !== "";

  const ask = (text: string) => {
    if (run.running || wait > 0 || !text.trim()) return;
    run.ask(text.trim());
  };

  return (
    <>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          ask(question);
        }}
      >
        <label htmlFor="explore-question">Question</label>
        <div className="filters">
          <textarea
            id="explore-question"
            rows={2}
            cols={80}
            value={question}
            onChange={(event) => setQuestion(event.target.value)}
          />
          <button type="submit" className="primary" disabled={!canAsk}>
            Ask
          </button>
          <button type="button" onClick={run.stop} disabled={!run.running}>
            Stop
          </button>
        </div>
      </form>
      {props.examples.length > 0 && (
        <section aria-labelledby="examples-heading">
          <h2 id="examples-heading">Example questions</h2>
          <div className="filters">
            {props.examples.map((example) => (
              <button
                key={example}
                type="button"
                disabled={run.running || wait > 0}
                onClick={() => {
                  setQuestion(example);
                  ask(example);
                }}
              >
                {example}
              </button>
            ))}
          </div>
        </section>
      )}
      {wait > 0 && (
        <p role="status" className="badge warn">
          Asking is possible again in {wait} s.
        </p>
      )}
      {run.problem && (
        <div className="problem" role="alert">
          <h2>
            {run.problem.status ? `${run.problem.status} ` : ""}
            {run.problem.title}
          </h2>
          {run.problem.detail && <p className="plain">{run.problem.detail}</p>}
          <p>
            {run.ending === "failed"
              ? "The stream of Guide broke off before its end."
              : explainGuideRefusal(run.problem) || explainProblem(run.problem)}
          </p>
          <p className="code">code: {run.problem.code}</p>
        </div>
      )}
      {run.ending === "timeout" && (
        <p role="alert" className="bad">
          The exploration ran longer than {Math.round(props.timeoutMs / 1000)} s: the panel stopped it.
        </p>
      )}
      {run.ending === "stopped" && <p role="status">Stopped.</p>}
      {(run.events.length > 0 || run.running) && (
        <section aria-labelledby="steps-heading" aria-busy={run.running}>
          <h2 id="steps-heading">Steps</h2>
          {session?.type === "session" && session.session_id && (
            <p>
              <Link to={tracePath(props.domain, session.session_id)}>View trace</Link>
            </p>
          )}
          <ol className="cards" aria-live="polite">
            {run.events.map((event, index) => (
              <EventView key={index} event={event} />
            ))}
          </ol>
          {run.running && <p className="muted">Exploring…</p>}
        </section>
      )}
      {answer?.type === "answer" && (
        <AnswerView answer={answer} domain={props.domain} kinds={props.kinds} point={props.point} />
      )}
    </>
  );
}
