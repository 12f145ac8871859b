"""Request bodies of Guide: read within guide.http.max_body_bytes, then checked member by member.

A body must come with Content-Length (411 without: Guide takes no chunked bodies, so it never
reads more than it allows) and at most max_body_bytes (413, refused before a byte is read). The
JSON must be an object with the members of its endpoint and no others; every problem is one
`Issue` of a 422 `invalid-input`, located by the member's name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from starlette.requests import Request

from lorebase_core.errors import (
    BodyTooLarge,
    InvalidInput,
    Issue,
    LengthRequired,
    MalformedJson,
    quoted,
)
from lorebase_platform.settings import GuideLimitSettings

EmbedMode = Literal["query", "document"]

EXPLORE_MEMBERS = ("domain", "branch", "question", "max_steps", "budget")
EMBED_MEMBERS = ("text", "mode")
NAME_CHARS = 200
"""Longest Domain or Branch name a request may give (Keeper's own names are shorter)."""


@dataclass(frozen=True)
class ExploreRequest:
    """A checked body of POST /explore; max_steps and budget as asked (None: the configured)."""

    domain: str
    branch: str | None
    question: str
    max_steps: int | None
    budget: int | None


@dataclass(frozen=True)
class EmbedRequest:
    """A checked body of POST /embed."""

    text: str
    mode: EmbedMode


async def read_json(request: Request, max_body_bytes: int) -> object:
    """The JSON document of `request`'s body: 411 without Content-Length, 413 past the limit,
    400 malformed-json when it is not UTF-8 JSON."""
    declared = request.headers.get("content-length")
    if declared is None:
        raise LengthRequired(
            "Send the body with a Content-Length header: Guide takes no chunked request bodies"
        )
    if not declared.isdigit():
        raise MalformedJson(f"Content-Length {quoted(declared)} is not a number of bytes")
    if int(declared) > max_body_bytes:
        raise BodyTooLarge(
            f"The body has {int(declared)} bytes, more than the {max_body_bytes} "
            "guide.http.max_body_bytes allows: send a shorter question"
        )
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > max_body_bytes:
            raise BodyTooLarge(
                f"The body is longer than the {max_body_bytes} bytes "
                "guide.http.max_body_bytes allows"
            )
    try:
        return json.loads(bytes(body).decode("utf-8"))
    except UnicodeDecodeError:
        raise MalformedJson("The body is not UTF-8 text: send JSON encoded as UTF-8") from None
    except (ValueError, RecursionError):
        raise MalformedJson("The body is not valid JSON: send a JSON object") from None


def explore_request(document: object, limits: GuideLimitSettings) -> ExploreRequest:
    """The body of POST /explore, or 422 listing every problem."""
    members = _object(document, "an exploration", EXPLORE_MEMBERS)
    issues = _unknown(members, EXPLORE_MEMBERS)
    domain = _name(members, "domain", issues, required=True)
    branch = _name(members, "branch", issues, required=False)
    question = _text(members, "question", limits.max_question_chars, issues, "max_question_chars")
    max_steps = _positive(members, "max_steps", issues)
    budget = _positive(members, "budget", issues)
    if issues:
        raise InvalidInput("The exploration request is not valid", issues)
    assert domain is not None
    assert question is not None
    return ExploreRequest(domain, branch, question, max_steps, budget)


def embed_request(document: object, limits: GuideLimitSettings) -> EmbedRequest:
    """The body of POST /embed, or 422 listing every problem."""
    members = _object(document, "an embedding request", EMBED_MEMBERS)
    issues = _unknown(members, EMBED_MEMBERS)
    text = _text(members, "text", limits.max_embed_chars, issues, "max_embed_chars")
    mode = members.get("mode", "query")
    if mode not in ("query", "document"):
        issues.append(Issue("mode", "expected 'query' or 'document'", "enum"))
    if issues:
        raise InvalidInput("The embedding request is not valid", issues)
    assert text is not None
    return EmbedRequest(text, "document" if mode == "document" else "query")


def _object(document: object, what: str, members: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(document, dict):
        raise InvalidInput(
            f"The body must be a JSON object, {what} with {', '.join(members)}",
            [Issue("", "expected an object", "type")],
        )
    return document


def _unknown(members: dict[str, Any], known: tuple[str, ...]) -> list[Issue]:
    return [
        Issue(str(name)[:80], f"not a member: use {', '.join(known)}", "unknown")
        for name in sorted(set(members) - set(known))
    ]


def _is_text(value: str) -> bool:
    """Whether `value` is storable text: no lone surrogate, no NUL."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in value


def _name(members: dict[str, Any], name: str, issues: list[Issue], *, required: bool) -> str | None:
    value = members.get(name)
    if value is None:
        if required:
            issues.append(Issue(name, "required: a non-empty string", "missing"))
        return None
    if not isinstance(value, str) or not value.strip():
        issues.append(Issue(name, "expected a non-empty string", "type"))
        return None
    if len(value) > NAME_CHARS or not _is_text(value):
        issues.append(Issue(name, f"expected a name of at most {NAME_CHARS} characters", "name"))
        return None
    return value


def _text(
    members: dict[str, Any], name: str, limit: int, issues: list[Issue], setting: str
) -> str | None:
    value = members.get(name)
    if value is None:
        issues.append(Issue(name, "required: a non-empty string", "missing"))
        return None
    if not isinstance(value, str) or not value.strip():
        issues.append(Issue(name, "expected a non-empty string", "type"))
        return None
    if len(value) > limit:
        issues.append(
            Issue(
                name,
                f"{len(value)} characters, more than the {limit} guide.limits.{setting} allows",
                "too-long",
            )
        )
        return None
    if not _is_text(value):
        issues.append(Issue(name, "holds a NUL character or a lone surrogate", "invalid-text"))
        return None
    return value


def _positive(members: dict[str, Any], name: str, issues: list[Issue]) -> int | None:
    value = members.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        issues.append(Issue(name, "expected a whole number of at least 1", "minimum"))
        return None
    return value
