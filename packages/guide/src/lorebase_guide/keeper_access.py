"""How Guide reaches Keeper for one exploration: the caller's credential and the trace headers.

`CallerTransport` wraps the transport of an exploration's `AsyncLorebaseClient`. On every request
it removes whatever credential and trace headers the client set (the client would otherwise take
$LOREBASE_API_KEY from the environment) and sets exactly the caller's forwarded headers and,
unless guide.trace.enabled is false, the session, the opt-in and the tool of the current step
(`guide.<tool>`). Guide never sends a credential of its own.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import httpx

from lorebase_platform.settings import GuideTraceSettings

__all__ = ["CallerTransport", "TraceNotes"]

logger = logging.getLogger(__name__)

_CREDENTIAL_HEADERS = ("authorization", "cookie", "x-csrf-token")
_CLIENT_TRACE_HEADERS = ("x-lorebase-session", "x-lorebase-trace", "x-lorebase-tool")


class CallerTransport(httpx.AsyncBaseTransport):
    """Sets the caller's credential headers and the trace headers on every request."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        caller_headers: Mapping[str, str],
        trace: GuideTraceSettings,
        session_id: str,
    ) -> None:
        self._inner = inner
        self._caller = dict(caller_headers)
        self._trace = trace
        self._session_id = session_id
        self.tool: str | None = None
        """The tool of the requests being made (`schema`, `query` ...); None: Guide's own."""

    def _strip(self, headers: httpx.Headers) -> None:
        names = {
            *_CREDENTIAL_HEADERS,
            *_CLIENT_TRACE_HEADERS,
            self._trace.session_header.lower(),
            self._trace.trace_header.lower(),
            self._trace.tool_header.lower(),
        }
        for name in list(headers.keys()):
            if name.lower() in names:
                del headers[name]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self._strip(request.headers)
        for name, value in self._caller.items():
            request.headers[name] = value
        if self._trace.enabled:
            request.headers[self._trace.session_header] = self._session_id
            request.headers[self._trace.trace_header] = "on"
            if self.tool is not None:
                request.headers[self._trace.tool_header] = f"guide.{self.tool}"
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


class TraceNotes:
    """Posts the model's reasoning notes to the exploration's trace session, best effort.

    A note is posted with the caller's credential (through `http`, whose transport is the
    exploration's `CallerTransport`) to guide.trace.notes_path. Any failure is logged without
    the note and never fails the exploration; after a refusal (any answer but a success) no
    further note of the session is sent.
    """

    def __init__(
        self, http: httpx.AsyncClient, trace: GuideTraceSettings, session_id: str, domain: str
    ) -> None:
        self._http = http
        self._trace = trace
        self._path = trace.notes_path.replace("{session}", session_id)
        self._domain = domain
        self.refused = not (trace.enabled and trace.notes)
        self.posted = 0

    async def post(self, text: str, step: int) -> None:
        """Post `text` as the note of `step` (cut to max_note_chars); never raises."""
        if self.refused or not text.strip():
            return
        body = {"text": text[: self._trace.max_note_chars], "step": step, "domain_id": self._domain}
        try:
            response = await self._http.post(self._path, json=body)
        except httpx.HTTPError as exc:
            logger.warning("trace note not posted (%s); no further notes", type(exc).__name__)
            self.refused = True
            return
        if not response.is_success:
            logger.info("trace note refused (HTTP %d); no further notes", response.status_code)
            self.refused = True
            return
        self.posted += 1
