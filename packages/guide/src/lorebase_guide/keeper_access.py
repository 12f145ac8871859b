"""How Guide reaches Keeper: always through `AsyncLorebaseClient`, with the caller's credential.

`CallerTransport` wraps the transport of each client Guide makes. On every request it removes
whatever credential and trace headers the client set (the client would otherwise take
$LOREBASE_API_KEY from the environment) and sets exactly the caller's forwarded headers and, for
an exploration's client unless guide.trace.enabled is false, the session, the opt-in and the tool
of the current step (`guide.<tool>`). Guide never sends a credential of its own.

`TraceNotes` posts an exploration's notes with its client (`client.trace.add_note`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import httpx

from lorebase_client import AsyncLorebaseClient, response_of
from lorebase_core.errors import LorebaseError
from lorebase_platform.settings import GuideTraceSettings

__all__ = ["CallerTransport", "TraceNotes"]

logger = logging.getLogger(__name__)

_CREDENTIAL_HEADERS = ("authorization", "cookie", "x-csrf-token")
_CLIENT_TRACE_HEADERS = ("x-lorebase-session", "x-lorebase-trace", "x-lorebase-tool")


class CallerTransport(httpx.AsyncBaseTransport):
    """Sets the caller's credential headers, and with `trace` the trace headers, on every request.

    Args:
        inner: the transport that sends.
        caller_headers: the caller's credential headers, forwarded verbatim.
        trace: guide.trace, for an exploration's requests (None: no trace headers).
        session_id: the exploration's trace session.
        owns_inner: whether closing this transport closes `inner` (False: `inner` is shared).
    """

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        caller_headers: Mapping[str, str],
        trace: GuideTraceSettings | None = None,
        session_id: str = "",
        *,
        owns_inner: bool = True,
    ) -> None:
        self._inner = inner
        self._caller = dict(caller_headers)
        self._trace = trace
        self._session_id = session_id
        self._owns_inner = owns_inner
        self.tool: str | None = None
        """The tool of the requests being made (`schema`, `query` ...); None: Guide's own."""

    def _strip(self, headers: httpx.Headers) -> None:
        names = {*_CREDENTIAL_HEADERS, *_CLIENT_TRACE_HEADERS}
        if self._trace is not None:
            names |= {
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
        trace = self._trace
        if trace is not None and trace.enabled:
            request.headers[trace.session_header] = self._session_id
            request.headers[trace.trace_header] = "on"
            if self.tool is not None:
                request.headers[trace.tool_header] = f"guide.{self.tool}"
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        if self._owns_inner:
            await self._inner.aclose()


class TraceNotes:
    """Posts the model's reasoning notes to the exploration's trace session, best effort.

    A note is posted with `client.trace.add_note` (the exploration's client: the caller's
    credential). Any failure is logged without the note and never fails the exploration; after
    a refusal (any answer but a success) no further note of the session is sent.
    """

    def __init__(
        self,
        client: AsyncLorebaseClient,
        trace: GuideTraceSettings,
        session_id: str,
        domain: str,
    ) -> None:
        self._client = client
        self._trace = trace
        self._session_id = session_id
        self._domain = domain
        self.refused = not (trace.enabled and trace.notes)
        self.posted = 0

    async def post(self, text: str, step: int) -> None:
        """Post `text` as the note of `step` (cut to max_note_chars); never raises."""
        if self.refused or not text.strip():
            return
        try:
            await self._client.trace.add_note(
                self._session_id,
                text[: self._trace.max_note_chars],
                step=step,
                domain_id=self._domain,
                path=self._trace.notes_path,
            )
        except httpx.HTTPError as exc:
            logger.warning("trace note not posted (%s); no further notes", type(exc).__name__)
            self.refused = True
            return
        except LorebaseError as exc:
            response = response_of(exc)
            answer = f"HTTP {response.status_code}" if response is not None else exc.code
            logger.info("trace note refused (%s); no further notes", answer)
            self.refused = True
            return
        self.posted += 1
