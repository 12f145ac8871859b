"""One chat endpoint, resolved from `inference.llm` and a task's overrides."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from lorebase_platform import resolve_secret
from lorebase_platform.settings import LlmSettings, LlmTaskSettings, PricePerMillionTokens

__all__ = ["ChatEndpoint", "endpoint_for"]

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class ChatEndpoint:
    """Everything a `ChatModel` needs to call one OpenAI-compatible chat endpoint.

    Secrets are resolved: `api_key` and the `headers` values are the values themselves, so
    neither is shown in the `repr`.
    """

    base_url: str
    """The endpoint, ending with `/v1` (`http://127.0.0.1:11434/v1`)."""
    model: str
    api_key: str | None = field(default=None, repr=False)
    """Sent as `Authorization: Bearer ...`; None sends no Authorization header."""
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    """Extra headers sent with every call."""
    temperature: float | None = 0.0
    """None sends no temperature (the endpoint's default)."""
    json_schema_strict: bool = True
    """The `strict` member of the `json_schema` response format."""
    extra_body: dict[str, Any] = field(default_factory=dict)
    """Members added to every request body (last, so they win)."""
    price: PricePerMillionTokens | None = None
    """Prices of a million tokens, to report what calls cost; None: unknown."""
    max_concurrency: int = 4
    """Calls one `ChatModel` makes at once."""
    max_tokens: int = 1024
    """The completion cap of every call."""
    timeout_s: float = 120.0
    """Seconds one HTTP call may take."""


def endpoint_for(llm: LlmSettings, task: str | None = None) -> ChatEndpoint:
    """The endpoint of `task` (or the main one of `inference.llm` when None or not configured).

    Each member the task sets overrides the main value. A task whose `base_url` differs from the
    main one never takes the main `api_key` or `headers`, only its own: a key is never sent to
    an endpoint it was not configured for. A task writing `temperature: null` sends none
    (and `price_per_million_tokens: null` reports no cost).

    Raises:
        SecretError: an `api_key` or header value is a `secret://` reference that names no
            readable file or set environment variable.
    """
    overrides = llm.tasks.get(task) if task is not None else None
    if overrides is None:
        overrides = LlmTaskSettings()
    base_url = overrides.base_url if overrides.base_url is not None else llm.base_url
    same_endpoint = _same_url(base_url, llm.base_url)
    api_key = overrides.api_key
    headers = overrides.headers
    if same_endpoint:
        api_key = api_key if api_key is not None else llm.api_key
        headers = headers if headers is not None else llm.headers
    # A task writing `temperature: null` (or `price_per_million_tokens: null`) means none;
    # any other member left null takes the main value.
    written = overrides.model_fields_set
    temperature = overrides.temperature
    if temperature is None and "temperature" not in written:
        temperature = llm.temperature
    price = overrides.price_per_million_tokens
    if price is None and "price_per_million_tokens" not in written:
        price = llm.price_per_million_tokens
    return ChatEndpoint(
        base_url=base_url,
        model=_or(overrides.model, llm.model),
        api_key=resolve_secret(api_key) if api_key is not None else None,
        headers={name: resolve_secret(value) for name, value in (headers or {}).items()},
        temperature=temperature,
        json_schema_strict=_or(overrides.json_schema_strict, llm.json_schema_strict),
        extra_body=dict(_or(overrides.extra_body, llm.extra_body)),
        price=price,
        max_concurrency=_or(overrides.max_concurrency, llm.max_concurrency),
        max_tokens=_or(overrides.max_tokens, llm.max_tokens),
        timeout_s=_or(overrides.timeout_s, llm.timeout_s),
    )


def _or(value: T | None, main: T) -> T:
    return main if value is None else value


def _same_url(first: str, second: str) -> bool:
    """Two base URLs name the same endpoint, whatever their trailing slash."""
    return first.rstrip("/") == second.rstrip("/")
