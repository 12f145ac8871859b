"""The one error of the example agent: a run that cannot go on, with a message for its user.

    AgentError        Keeper unreachable, a refused or missing key, the model unavailable or
                      answering invalid steps, Herald failing to start

Its message says what failed and how to fix it; it never holds the API key, a prompt or a
model's answer.
"""

from __future__ import annotations


class AgentError(Exception):
    """A run that cannot go on; `str(error)` is the message printed to the user."""
