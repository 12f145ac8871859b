// A refusal on screen: its status, title, Keeper's detail, what it means (explainProblem.ts)
// and its code.
import type { ApiProblem } from "../api/client";
import { explainProblem } from "./explainProblem";

export function ProblemView(props: { problem: ApiProblem }) {
  const { problem } = props;
  return (
    <div className="problem" role="alert">
      <h2>
        {problem.status ? `${problem.status} ` : ""}
        {problem.title}
      </h2>
      {problem.detail && <p className="detail">{problem.detail}</p>}
      <p>{explainProblem(problem)}</p>
      <p className="code">code: {problem.code}</p>
    </div>
  );
}
