"""Settings a process cannot use, and the services it depends on (models, embeddings)."""

from __future__ import annotations

from typing import Any

from lorebase_core.errors.base import BadRequest, LorebaseError


class SecretError(BadRequest):
    """A `secret://` reference that names no readable file or set environment variable."""

    code = "secret-unresolved"
    title = "Secret reference cannot be resolved"


class UnsafeSettings(LorebaseError):
    """Settings a process refuses to start with, because they would expose it (say how to fix)."""

    status = 500
    code = "unsafe-settings"
    title = "Unsafe settings"


class BackgroundUnavailable(LorebaseError):
    """Background work asked for (`lorebase serve --scribe`) whose package is not installed."""

    status = 500
    code = "background-unavailable"
    title = "Background work unavailable"


class ModelUnavailable(LorebaseError):
    """A chat endpoint that could not answer: down, too slow, or answering an error status.

    The detail names the endpoint's host and model and what happened, never its key or a prompt.
    """

    status = 502
    code = "model-unavailable"
    title = "Model unavailable"


class ModelAnswerInvalid(LorebaseError):
    """A model's answer that did not match the requested JSON schema, even after one repair call.

    The detail names the first few schema problems by path (`/steps/0/tool: ...`, `/: not json`).
    `prompt_tokens` and `completion_tokens` are what the failed calls used (both answered, so
    both are paid for); they are attributes, not members of the problem document.
    """

    status = 502
    code = "model-answer-invalid"
    title = "Model answer invalid"

    def __init__(
        self, detail: str, *, prompt_tokens: int = 0, completion_tokens: int = 0, **extra: Any
    ) -> None:
        super().__init__(detail, **extra)
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens


class EmbeddingUnavailable(LorebaseError):
    """No usable embedding model: the bundled one missing, or the endpoint failed or is down.

    The detail names the model (and the endpoint's host) and what happened, never a text.
    """

    status = 502
    code = "embedding-unavailable"
    title = "Embedding model unavailable"
