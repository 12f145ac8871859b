// One event of the stream as plain text. Notes, arguments, summaries and messages are model
// output shaped by graph data: React renders them as text nodes, never as HTML or Markdown.
import type { ExploreEvent } from "./events";

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

function doneTotals(event: Extract<ExploreEvent, { type: "done" }>): string {
  const { input, output } = event.tokens;
  return (
    `${event.steps} step${event.steps === 1 ? "" : "s"}, ${seconds(event.elapsed_ms)} s, ` +
    `${input + output} tokens (${input} in, ${output} out), outcome ${event.outcome}`
  );
}

export function EventView(props: { event: ExploreEvent }) {
  const { event } = props;
  switch (event.type) {
    case "session":
      return (
        <li className="muted">
          Session {event.session_id}
          {event.model ? ` · model ${event.model}` : ""}
          {event.max_steps !== null ? ` · at most ${event.max_steps} steps` : ""}
          {event.branch ? ` · branch ${event.branch}` : ""}
        </li>
      );
    case "thought":
      return (
        <li>
          <span className="badge">step {event.step} note</span> <span className="plain">{event.text}</span>
        </li>
      );
    case "tool_call":
      return (
        <li>
          <span className="badge">step {event.step} call</span> <code className="plain">{event.tool}</code>{" "}
          <code className="plain">{JSON.stringify(event.args)}</code>
        </li>
      );
    case "tool_result":
      return (
        <li>
          <span className={`badge${event.ok ? "" : " warn"}`}>
            step {event.step} {event.ok ? "result" : "failed"}
          </span>{" "}
          <code>{event.tool}</code> <span className="plain">{event.summary}</span>{" "}
          <span className="muted">
            ({event.refs.length} Record{event.refs.length === 1 ? "" : "s"})
          </span>
        </li>
      );
    case "error":
      return (
        <li className="bad" role="alert">
          Error {event.code}: <span className="plain">{event.message}</span>
        </li>
      );
    case "done":
      return <li className="muted">Done: {doneTotals(event)}</li>;
    case "answer":
      // The answer has a section of its own (AnswerView).
      return null;
  }
}
