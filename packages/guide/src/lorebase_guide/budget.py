"""The token budget of one exploration (docs/guide.md, "Budgets and limits").

Before each model call the input is estimated from its length: 4 characters per token for the
first call, then the ratio the endpoint's own count of the previous call gave. A call is made
only when what was used plus the estimated input leaves room for an answer within
`max_total_tokens`; its completion cap is what remains, at most `max_tokens_per_call`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["MIN_COMPLETION_TOKENS", "TokenBudget"]

FIRST_CHARS_PER_TOKEN = 4.0
MIN_COMPLETION_TOKENS = 16
"""A call whose completion cap would be smaller is not made: no answer fits in it."""


@dataclass
class TokenBudget:
    """Tokens used so far against the totals of one exploration."""

    max_total_tokens: int
    max_tokens_per_call: int
    input_tokens: int = 0
    output_tokens: int = 0
    chars_per_token: float = FIRST_CHARS_PER_TOKEN

    @property
    def used(self) -> int:
        return self.input_tokens + self.output_tokens

    def estimate(self, chars: int) -> int:
        """Tokens of `chars` characters of input, by the current ratio."""
        return math.ceil(chars / self.chars_per_token)

    def cap(self, input_chars: int) -> int:
        """The completion cap of a call with `input_chars` of input: what remains after the
        estimate, at most max_tokens_per_call (0 or less: the call must not be made)."""
        remaining = self.max_total_tokens - self.used - self.estimate(input_chars)
        return min(self.max_tokens_per_call, remaining)

    def fits_call(self, input_chars: int) -> bool:
        """Whether a call with this input leaves room for an answer."""
        return self.cap(input_chars) >= MIN_COMPLETION_TOKENS

    def covers_step(self, input_chars: int, result_chars: int) -> bool:
        """Whether the budget covers a tool step: this call (its input and a full completion),
        then the next call with a full tool result of `result_chars` added to its input, and an
        answer of max_tokens_per_call from it."""
        output_chars = math.ceil(self.max_tokens_per_call * self.chars_per_token)
        this_call = self.estimate(input_chars) + self.max_tokens_per_call
        next_call = self.estimate(input_chars + output_chars + result_chars)
        needed = this_call + next_call + self.max_tokens_per_call
        return self.used + needed <= self.max_total_tokens

    def record(self, input_chars: int, prompt_tokens: int, completion_tokens: int) -> None:
        """Count a call's tokens as the endpoint counted them, and learn its ratio."""
        self.input_tokens += prompt_tokens
        self.output_tokens += completion_tokens
        if prompt_tokens > 0 and input_chars > 0:
            self.chars_per_token = input_chars / prompt_tokens
