"""Chat with structured output over any OpenAI-compatible endpoint (docs/inference.md).

A call asks for an answer valid against a JSON schema. It tries the endpoint's `json_schema`
response format first; an endpoint that refuses it (HTTP 400, 422, 500 or 501 on the first try
in that mode) is asked again with the schema written into a system message and the
`json_object` response format, then without any response format. The mode an endpoint accepts
is remembered, so later calls go straight to it: for the life of the process, or in a
`ModeMemory` file across restarts (lorebase_inference.mode_memory). Every answer is validated
locally (JSON Schema Draft 2020-12); an invalid one gets one repair call.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import threading
from dataclasses import dataclass
from types import TracebackType
from typing import Any, ClassVar, Literal

import httpx
import jsonschema  # type: ignore[import-untyped]

from lorebase_core.errors import ModelAnswerInvalid, ModelUnavailable, shortened
from lorebase_inference.endpoint import ChatEndpoint
from lorebase_inference.mode_memory import ModeMemory, RequestShape

__all__ = ["ChatModel", "StructuredAnswer", "Usage"]

logger = logging.getLogger(__name__)

Mode = Literal["json_schema", "prompt"]
"""How an answer was asked for: the endpoint's JSON-schema format, or the schema in the prompt."""

_Step = RequestShape
"""The request shapes tried in turn: `json_schema` format, `json_object` format, no format."""

_STEPS: tuple[_Step, ...] = ("json_schema", "json_object", "plain")
_REFUSALS = frozenset({400, 422, 500, 501})
"""Statuses that, on the first try of a mode, mean the endpoint does not take that mode."""
_SHOWN_PROBLEMS = 3
"""Schema problems named in the detail of `ModelAnswerInvalid` and in the repair message."""
_PROBLEM_CHARS = 160
_FENCED = re.compile(r"```[ \t]*(?:json)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Usage:
    """Tokens a structured call used (every HTTP call of it, a repair call included)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    """What the calls cost by the endpoint's `price`; None when it has no price."""


@dataclass(frozen=True)
class StructuredAnswer:
    """A model's answer, parsed and valid against the schema it was asked for."""

    value: dict[str, Any]
    mode: Mode
    repaired: bool
    """True when the first answer was invalid and the repair call's answer is this one."""
    usage: Usage
    raw_text: str
    """The answer's text as the model wrote it (fences and all)."""


class ChatModel:
    """An async client of one OpenAI-compatible chat endpoint.

    Use it as `async with ChatModel(endpoint) as model:` or call `aclose()`. At most
    `endpoint.max_concurrency` calls of one `ChatModel` are in flight at once. Prompts and
    answers are never logged, and errors never quote them or the key.

    Args:
        endpoint: the endpoint and its settings.
        memory: where the accepted structured-output mode is remembered (a file shared with
            other processes and restarts, `mode_memory_for(settings)`); None: a memory of this
            process shared by every `ChatModel` without one.
        transport: httpx's transport (tests).
    """

    # The mode each endpoint accepts, by `mode_key`, for the life of the process (ChatModels
    # given no ModeMemory).
    _modes: ClassVar[dict[str, _Step]] = {}
    _modes_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self,
        endpoint: ChatEndpoint,
        *,
        memory: ModeMemory | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.memory = memory
        headers = dict(endpoint.headers)
        if endpoint.api_key is not None:
            headers["Authorization"] = f"Bearer {endpoint.api_key}"
        self._client = httpx.AsyncClient(
            transport=transport, headers=headers, timeout=httpx.Timeout(endpoint.timeout_s)
        )
        self._url = f"{endpoint.base_url.rstrip('/')}/chat/completions"
        self._slots = asyncio.Semaphore(endpoint.max_concurrency)
        url = httpx.URL(endpoint.base_url)
        self._where = f"model {endpoint.model!r} at {url.host}" + (
            f":{url.port}" if url.port else ""
        )

    async def __aenter__(self) -> ChatModel:
        return self

    async def unavailable(self, timeout_s: float = 3.0) -> str | None:
        """Why the endpoint cannot be used now, or None when its `GET /models` answers 200.

        The reason names the host and port, never the key or the path's query."""
        try:
            response = await self._client.get(
                f"{self.endpoint.base_url.rstrip('/')}/models", timeout=timeout_s
            )
        except httpx.HTTPError as exc:
            return f"{self._where} cannot be reached ({type(exc).__name__})"
        if not response.is_success:
            return f"{self._where} answered GET /models with HTTP {response.status_code}"
        return None

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections to the endpoint."""
        await self._client.aclose()

    @classmethod
    def forget_modes(cls) -> None:
        """Forget the structured-output mode of every endpoint remembered by this process for
        ChatModels without a `ModeMemory` (the next call tries them all)."""
        with cls._modes_lock:
            cls._modes.clear()

    def _remembered(self, key: str) -> _Step:
        if self.memory is not None:
            return self.memory.get(key) or "json_schema"
        with self._modes_lock:
            return self._modes.get(key, "json_schema")

    def _remember(self, key: str, step: _Step) -> None:
        if self.memory is not None:
            self.memory.put(key, step)
            return
        with self._modes_lock:
            self._modes[key] = step

    async def structured(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        *,
        name: str,
        max_tokens: int | None = None,
    ) -> StructuredAnswer:
        """The model's answer to `messages` as a JSON object valid against `schema`.

        Args:
            messages: the chat so far, OpenAI's `{"role": ..., "content": ...}` messages.
            schema: a JSON schema (Draft 2020-12) of the answer, an object.
            name: the schema's name, sent to the endpoint and named in errors (`explore_step`).
            max_tokens: the completion cap of this call, at most the endpoint's `max_tokens`.

        Raises:
            ModelUnavailable: the endpoint could not be reached, timed out, or answered an error
                status (after the step-down of the modes).
            ModelAnswerInvalid: the answer and the repair call's answer were both invalid.
        """
        cap = (
            self.endpoint.max_tokens
            if max_tokens is None
            else min(max_tokens, self.endpoint.max_tokens)
        )
        validator = jsonschema.Draft202012Validator(schema)
        key = mode_key(self.endpoint)
        usage = _Tally()
        step, text = await self._first_answer(
            messages, schema, name, cap, self._remembered(key), usage
        )
        self._remember(key, step)
        mode: Mode = "json_schema" if step == "json_schema" else "prompt"
        value, problems = _parse(text, validator)
        if value is not None:
            return StructuredAnswer(value, mode, False, usage.total(self.endpoint), text)
        repair = [
            *messages,
            {"role": "assistant", "content": text},
            {"role": "user", "content": _repair_message(name, problems)},
        ]
        text = await self._ask(self._body(repair, schema, name, cap, step), usage)
        value, problems = _parse(text, validator)
        if value is not None:
            return StructuredAnswer(value, mode, True, usage.total(self.endpoint), text)
        raise _answer_invalid(self._where, name, problems, usage)

    async def _first_answer(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        name: str,
        cap: int,
        start: _Step,
        usage: _Tally,
    ) -> tuple[_Step, str]:
        """The first answer and the step that got it, stepping down past refused modes."""
        steps = _STEPS[_STEPS.index(start) :]
        for index, step in enumerate(steps):
            last = index == len(steps) - 1
            try:
                return step, await self._ask(
                    self._body(messages, schema, name, cap, step), usage, refusal=not last
                )
            except _Refused as refused:
                logger.info(
                    "%s refused structured output %r (HTTP %d); stepping down",
                    self._where,
                    step,
                    refused.status,
                )
        raise AssertionError("the last step raises instead of refusing")  # pragma: no cover

    def _body(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        name: str,
        cap: int,
        step: _Step,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.endpoint.model, "max_tokens": cap}
        if self.endpoint.temperature is not None:
            body["temperature"] = self.endpoint.temperature
        if step == "json_schema":
            body["messages"] = messages
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": name,
                    "schema": schema,
                    "strict": self.endpoint.json_schema_strict,
                },
            }
        else:
            body["messages"] = _with_schema_prompt(messages, schema)
            if step == "json_object":
                body["response_format"] = {"type": "json_object"}
        body.update(self.endpoint.extra_body)
        return body

    async def _ask(self, body: dict[str, Any], usage: _Tally, *, refusal: bool = False) -> str:
        """The answer's text of one HTTP call; `refusal` turns a refusal status into `_Refused`."""
        async with self._slots:
            try:
                response = await self._client.post(self._url, json=body)
            except httpx.TimeoutException as exc:
                raise ModelUnavailable(
                    f"{self._where} did not answer within {self.endpoint.timeout_s:g} s "
                    f"({type(exc).__name__})"
                ) from exc
            except httpx.HTTPError as exc:
                raise ModelUnavailable(
                    f"{self._where} cannot be reached ({type(exc).__name__}); is it running?"
                ) from exc
        if refusal and response.status_code in _REFUSALS:
            raise _Refused(response.status_code)
        if not response.is_success:
            raise ModelUnavailable(
                f"{self._where} answered HTTP {response.status_code}{_error_kind(response)}"
            )
        return self._text_of(response, usage)

    def _text_of(self, response: httpx.Response, usage: _Tally) -> str:
        try:
            completion = response.json()
            content = completion["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ModelUnavailable(
                f"{self._where} answered HTTP {response.status_code} with something that is not "
                "a chat completion (no choices[0].message.content)"
            ) from exc
        counts = completion.get("usage")
        if isinstance(counts, dict):
            usage.add(counts.get("prompt_tokens"), counts.get("completion_tokens"))
        return content if isinstance(content, str) else ""


def mode_key(endpoint: ChatEndpoint) -> str:
    """The key of an endpoint's remembered mode: a SHA-256 of what decides which mode it takes
    (base URL, model, strictness, extra body), so the key never shows the address."""
    material = json.dumps(
        [
            endpoint.base_url.rstrip("/"),
            endpoint.model,
            endpoint.json_schema_strict,
            endpoint.extra_body,
        ],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class _Refused(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Tally:
    def __init__(self) -> None:
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def add(self, prompt_tokens: object, completion_tokens: object) -> None:
        if isinstance(prompt_tokens, int):
            self.prompt_tokens += prompt_tokens
        if isinstance(completion_tokens, int):
            self.completion_tokens += completion_tokens

    def total(self, endpoint: ChatEndpoint) -> Usage:
        cost = None
        if endpoint.price is not None:
            cost = (
                self.prompt_tokens * endpoint.price.input
                + self.completion_tokens * endpoint.price.output
            ) / 1_000_000
        return Usage(self.prompt_tokens, self.completion_tokens, cost)


def _with_schema_prompt(
    messages: list[dict[str, str]], schema: dict[str, Any]
) -> list[dict[str, str]]:
    """`messages` with the schema written into the system message (one, first)."""
    instruction = "Answer with one JSON object only, valid against this JSON schema: " + json.dumps(
        schema, separators=(",", ":")
    )
    if messages and messages[0].get("role") == "system":
        first = messages[0]
        return [{**first, "content": f"{first['content']}\n\n{instruction}"}, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


def _parse(text: str, validator: Any) -> tuple[dict[str, Any] | None, list[str]]:
    """The answer's JSON object when valid, else None and its problems (`path: message`)."""
    try:
        value = json.loads(_unfenced(text))
    except ValueError:
        return None, ["/: not json"]
    if not isinstance(value, dict):
        return None, [f"/: not a JSON object ({type(value).__name__})"]
    errors = sorted(validator.iter_errors(value), key=lambda error: list(map(str, error.path)))
    if not errors:
        return value, []
    return None, [
        shortened(f"/{'/'.join(map(str, error.path))}: {error.message}", _PROBLEM_CHARS)
        for error in errors
    ]


def _unfenced(text: str) -> str:
    """The text inside a Markdown code fence (```json ... ```), or the text itself."""
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        return stripped
    found = _FENCED.search(stripped)
    return found.group(1).strip() if found else stripped


def _repair_message(name: str, problems: list[str]) -> str:
    shown = "; ".join(problems[:_SHOWN_PROBLEMS])
    return (
        f"Your answer does not match the JSON schema {name!r}: {shown}. "
        "Answer again with one JSON object only, valid against the schema."
    )


def _answer_invalid(
    where: str, name: str, problems: list[str], usage: _Tally
) -> ModelAnswerInvalid:
    shown = problems[:_SHOWN_PROBLEMS]
    more = len(problems) - len(shown)
    return ModelAnswerInvalid(
        f"The answer of {where} does not match the schema {name!r}, even after a repair call: "
        + "; ".join(shown)
        + (f" (and {more} more)" if more else ""),
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        problems=shown,
    )


def _error_kind(response: httpx.Response) -> str:
    """The error type or code of an OpenAI error document, never its message (it may quote the
    prompt)."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return ""
    if not isinstance(error, dict):
        return ""
    kind = error.get("code") or error.get("type")
    return f" ({shortened(str(kind), 60)})" if kind else ""
