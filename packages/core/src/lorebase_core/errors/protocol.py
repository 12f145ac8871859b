"""Requests that cannot be read as sent, and answers the client cannot read (HTTP itself)."""

from __future__ import annotations

from lorebase_core.errors.base import BadRequest, InvalidInput, LorebaseError


class BadCursor(BadRequest):
    code = "bad-cursor"
    title = "Bad cursor"


class MalformedJson(BadRequest):
    """A body that is not JSON, or JSON nested deeper than decoding goes."""

    code = "malformed-json"
    title = "Malformed JSON"


class InvalidPathSegment(BadRequest, ValueError):
    """A value that cannot name a path segment: empty, `.` or `..`. The client raises it before
    any request; it is both a `BadRequest` and a `ValueError`."""

    code = "invalid-path-segment"
    title = "Invalid path segment"


class InvalidText(InvalidInput):
    """Text that is not Unicode a database can store: lone UTF-16 surrogates (`\\ud800`), NUL
    characters (`\\u0000`) or bytes that are not UTF-8, in a body, a path or a query string."""

    code = "invalid-text"
    title = "Invalid text"


class MethodNotAllowed(LorebaseError):
    """A method the route does not take; the answer's `Allow` header lists those it does."""

    status = 405
    code = "method-not-allowed"
    title = "Method Not Allowed"


class RequestTimeout(LorebaseError):
    """The request body did not arrive within keeper.http.body_timeout_s; the connection closes."""

    status = 408
    code = "request-timeout"
    title = "Request timeout"


class BodyTooLarge(LorebaseError):
    """A request body over keeper.max_body_bytes."""

    status = 413
    code = "body-too-large"
    title = "Request body too large"


class NotImplementedYet(LorebaseError):
    """A part of the API that is planned and not built: 501, naming the missing piece."""

    status = 501
    code = "not-implemented"
    title = "Not implemented yet"


class UnexpectedAnswer(LorebaseError):
    """A success answer the client cannot read (not JSON, say): is the base URL Keeper's?"""

    status = 502
    code = "unexpected-answer"
    title = "Unexpected answer"
