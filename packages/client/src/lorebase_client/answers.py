"""Keeper's answers as the client returns them: the parsed JSON (or Markdown) and its headers.

An `Answer` is the parsed JSON document itself (a `dict`: index it, compare it, `json.dumps` it),
with what the headers said as attributes: `etag`, `revision` (the `Lorebase-Revision` header),
`status_code`, `not_modified` and `replayed` (the `Idempotent-Replayed` header of a write). A
Markdown answer (explain with `format="markdown"`) is a `Text`, a `str` with the same attributes.

Conditional reads: pass an answer's `etag` back (`etag=answer.etag`). When nothing changed, Keeper
answers 304 and the method returns an empty answer whose `not_modified` is True: keep using the
one you have.

Idempotent writes: an execution sent again with the same idempotency key is not run again; Keeper
answers what the first one answered, with `Idempotent-Replayed: true`, and `replayed` is True.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, Unpack

import httpx

from lorebase_client.errors import error_from_response
from lorebase_core.errors import UnexpectedAnswer

REVISION_HEADER = "Lorebase-Revision"
REPLAYED_HEADER = "Idempotent-Replayed"


class AnswerHeaders(TypedDict, total=False):
    """What the headers of an answer said: the keywords of `Answer` and `Text`."""

    etag: str | None
    revision: str | None
    status_code: int
    not_modified: bool
    replayed: bool


class _FromHeaders:
    """The attributes `Answer` and `Text` share: what the headers of the answer said."""

    etag: str | None
    """The ETag to send back as `etag=` for a conditional read (None: the answer has none)."""
    revision: str | None
    """The Revision the answer was read at (the `Lorebase-Revision` header)."""
    status_code: int
    not_modified: bool
    """True for the empty answer of a 304: what you have is current."""
    replayed: bool
    """True when Keeper answered a write from its idempotency key (`Idempotent-Replayed: true`):
    the write was not run again, this is the answer of the first one."""

    def _keep(self, headers: AnswerHeaders) -> None:
        self.etag = headers.get("etag")
        self.revision = headers.get("revision")
        self.status_code = headers.get("status_code", 200)
        self.not_modified = headers.get("not_modified", False)
        self.replayed = headers.get("replayed", False)


class Answer(_FromHeaders, dict[str, Any]):
    """A JSON answer: the document, plus `etag`, `revision`, `status_code`, `not_modified` and
    `replayed`."""

    def __init__(
        self, document: Mapping[str, Any] | None = None, **headers: Unpack[AnswerHeaders]
    ) -> None:
        super().__init__(document or {})
        self._keep(headers)

    def __repr__(self) -> str:
        if self.not_modified:
            return f"Answer(not_modified=True, etag={self.etag!r})"
        return f"Answer({dict.__repr__(self)})"


class Text(_FromHeaders, str):
    """A Markdown answer: the text, plus `etag`, `revision`, `status_code`, `not_modified` and
    `replayed`."""

    def __new__(cls, text: str = "", **headers: Unpack[AnswerHeaders]) -> Text:
        made = super().__new__(cls, text)
        made._keep(headers)
        return made


def _raise_for_problem(response: httpx.Response) -> None:
    if response.status_code >= 400:
        raise error_from_response(response)


def _headers(response: httpx.Response) -> AnswerHeaders:
    return {
        "etag": response.headers.get("etag"),
        "revision": response.headers.get(REVISION_HEADER),
        "status_code": response.status_code,
        "not_modified": response.status_code == 304,
        "replayed": response.headers.get(REPLAYED_HEADER, "").strip().lower() == "true",
    }


def json_answer(response: httpx.Response) -> Answer:
    """The `Answer` of a response; raises the typed error of a problem document.

    Raises:
        LorebaseError: the class of the problem document's code (see `errors`).
        UnexpectedAnswer: a success answer that is not a JSON object.
    """
    _raise_for_problem(response)
    if response.status_code == 304:
        return Answer(**_headers(response))
    try:
        document = response.json()
    except ValueError:
        document = None
    if not isinstance(document, dict):
        content_type = response.headers.get("content-type", "no content type")
        raise UnexpectedAnswer(
            f"{response.request.method} {response.request.url} answered {content_type}, "
            "not a JSON object: is the base URL the one of a Keeper?"
        )
    return Answer(document, **_headers(response))


def text_answer(response: httpx.Response) -> Text:
    """The `Text` of a Markdown response; raises the typed error of a problem document."""
    _raise_for_problem(response)
    if response.status_code == 304:
        return Text(**_headers(response))
    return Text(response.text, **_headers(response))
