"""The example agent: Lorebase through Herald over stdio, and any OpenAI-compatible model.

Run it from the repository root (README.md beside this file):

    uv run python -m examples.agent --task ask "Which parts have a single supplier?"

It starts Herald as a desktop MCP client would (`python -m lorebase_herald`, the key in the
child's environment), asks the model for one JSON step at a time (structured output, no
tool-call API), runs the tool calls, checks the citations of the answer against the refs the
tool results showed, and leaves the whole run in one trace session `agent-<16 hex>`: Herald's
calls and the model's thoughts as notes.
"""

from examples.agent.credentials import Credentials, find_credentials
from examples.agent.errors import AgentError
from examples.agent.report import Episode, RunReport
from examples.agent.run import RunOptions, run_agent
from examples.agent.tasks import TASK_NAMES, TaskName

__all__ = [
    "TASK_NAMES",
    "AgentError",
    "Credentials",
    "Episode",
    "RunOptions",
    "RunReport",
    "TaskName",
    "find_credentials",
    "run_agent",
]
