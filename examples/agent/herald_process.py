"""Herald as a child process over stdio, started exactly as a desktop MCP client starts it.

The child gets Keeper's URL, the key and the trace settings through its environment only
(never on its command line, where other users of the machine could read them): the key sits in
`LOREBASE_AGENT_API_KEY` of the child's environment and `herald.keeper.api_key` names it as
`secret://env/LOREBASE_AGENT_API_KEY`. Besides the SDK's safe defaults (PATH, HOME, USER ...),
only `LOREBASE_CONFIG` is passed on.
"""

from __future__ import annotations

import os
import secrets
import sys

from examples.agent.credentials import Credentials
from mcp import StdioServerParameters

KEY_VARIABLE = "LOREBASE_AGENT_API_KEY"
"""The variable of the child's environment that holds the agent's key."""
PASSED_ON = ("PATH", "HOME", "LOREBASE_CONFIG")
"""Variables of this process that the child keeps."""


def new_session_id() -> str:
    """A fresh trace session id: `agent-` and 16 hex digits."""
    return f"agent-{secrets.token_hex(8)}"


def herald_environment(
    credentials: Credentials, session_id: str, *, max_result_tokens: int | None = None
) -> dict[str, str]:
    """The environment of the Herald child: where Keeper is, the key, and the trace session."""
    environment = {name: os.environ[name] for name in PASSED_ON if name in os.environ}
    environment.update(
        {
            "LOREBASE__HERALD__KEEPER__BASE_URL": credentials.keeper_url,
            "LOREBASE__HERALD__KEEPER__API_KEY": f"secret://env/{KEY_VARIABLE}",
            KEY_VARIABLE: credentials.api_key,
            "LOREBASE__HERALD__TRACE__SESSION_ID": session_id,
            "LOREBASE__HERALD__TRACE__OPT_IN": "true",
        }
    )
    if max_result_tokens is not None:
        environment["LOREBASE__HERALD__MAX_RESULT_TOKENS"] = str(max_result_tokens)
    return environment


def herald_parameters(
    credentials: Credentials, session_id: str, *, max_result_tokens: int | None = None
) -> StdioServerParameters:
    """How to start Herald: `python -m lorebase_herald` (stdio) with `herald_environment`."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "lorebase_herald"],
        env=herald_environment(credentials, session_id, max_result_tokens=max_result_tokens),
    )
