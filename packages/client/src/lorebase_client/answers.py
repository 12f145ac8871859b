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
from typing import Any

import httpx

from lorebase_client.errors import error_from_response
from lorebase_core.errors import UnexpectedAnswer

REVISION_HEADER = "Lorebase-Revision"
REPLAYED_HEADER = "Idempotent-Replayed"


class Answer(dict[str, Any]):
    """A JSON answer: the document, plus `etag`, `revision`, `status_code`, `not_modified` and
    `replayed`."""

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

    def __init__(
        self,
        document: Mapping[str, Any] | None = None,
        *,
        etag: str | None = None,
        revision: str | None = None,
        status_code: int = 200,
        not_modified: bool = False,
        replayed: bool = False,
    ) -> None:
        super().__init__(document or {})
        self.etag = etag
        self.revision = revision
        self.status_code = status_code
        self.not_modified = not_modified
        self.replayed = replayed

    def __repr__(self) -> str:
        if self.not_modified:
            return f"Answer(not_modified=True, etag={self.etag!r})"
        return f"Answer({dict.__repr__(self)})"


class Text(str):
    """A Markdown answer: the text, plus `etag`, `revision`, `status_code`, `not_modified` and
    `replayed`."""

    etag: str | None
    revision: str | None
    status_code: int
    not_modified: bool
    replayed: bool

    def __new__(
        cls,
        text: str = "",
        *,
        etag: str | None = None,
        revision: str | None = None,
        status_code: int = 200,
        not_modified: bool = False,
        replayed: bool = False,
    ) -> Text:
        made = super().__new__(cls, text)
        made.etag = etag
        made.revision = revision
        made.status_code = status_code
        made.not_modified = not_modified
        made.replayed = replayed
        return made


def _raise_for_problem(response: httpx.Response) -> None:
    if response.status_code >= 400:
        raise error_from_response(response)


def _headers(response: httpx.Response) -> dict[str, Any]:
    return {
        "etag": response.headers.get("etag"),
        "revision": response.headers.get(REVISION_HEADER),
        "status_code": response.status_code,
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
        return Answer(not_modified=True, **_headers(response))
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
        return Text(not_modified=True, **_headers(response))
    return Text(response.text, **_headers(response))
