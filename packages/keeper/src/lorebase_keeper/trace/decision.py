"""Which requests are traced (docs/trace.md, "Turning it on"), decided from the headers.

A request is traced when keeper.trace.enabled is true and one of: it opts in with the opt-in
header (`on` or `debug`, when allow_header_opt_in), its principal is in `principals`, its API
key id is in `api_keys`, or `trace_all` is set and it is not the web app's own request (marked
with client_header: web_client, or authenticated by a browser session cookie naming no session),
unless include_web. A malformed session id is never traced. The principal is known only once
the route authenticated the request, so `principals` and `trace_all` make every request a
candidate, settled when it has answered (`Candidate.settle`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.http.headers import Headers, header
from lorebase_platform.settings import TraceSettings
from lorebase_store import api_key_id

SESSION_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
TRACEPARENT = re.compile(r"00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}")


@dataclass(frozen=True)
class Candidate:
    """A request that may be traced, with what its headers said."""

    opted_in: bool
    debug: bool
    session_id: str | None
    tool: str | None
    trace_id: str | None
    key_id: str | None
    web: bool
    """The web app's own request: trace_all leaves it out unless include_web."""


class TraceDecision:
    """keeper.trace's rules, with the header names made ready once."""

    def __init__(self, settings: TraceSettings, *, session_cookies: tuple[bytes, ...]) -> None:
        """`session_cookies`: the names of the browser session cookie (keeper.auth.sessions,
        plain and `__Host-`): a request authenticated by one is the web app's own."""
        self.settings = settings
        self.session_cookies = session_cookies
        self.opt_in_header = settings.opt_in_header.lower().encode()
        self.session_header = settings.session_header.lower().encode()
        self.tool_header = settings.tool_header.lower().encode()
        self.client_header = settings.client_header.lower().encode()
        self.web_client = settings.web_client.encode()
        self.principals = frozenset(settings.principals)
        self.api_keys = frozenset(settings.api_keys)
        self.wide = settings.trace_all or bool(self.principals) or bool(self.api_keys)
        """Whether a request that does not opt in can still be traced."""

    def candidate(self, headers: Headers) -> Candidate | None:
        """The request as a candidate for tracing, or None when it is certainly not traced.

        Without trace_all, principals or api_keys this is one header lookup.
        """
        opt_in = header(headers, self.opt_in_header) if self.settings.allow_header_opt_in else None
        opted_in = opt_in in (b"on", b"debug")
        if not opted_in and not self.wide:
            return None
        session = header(headers, self.session_header)
        session_id: str | None = None
        if session is not None:
            text = session.decode("latin-1")
            if not SESSION_ID.fullmatch(text):
                return None  # a malformed session id is not traced
            session_id = text
        tool = header(headers, self.tool_header)
        parent = header(headers, b"traceparent")
        trace_id = None
        if parent is not None:
            found = TRACEPARENT.fullmatch(parent.decode("latin-1").strip().lower())
            if found and found.group(1) != "0" * 32 and found.group(2) != "0" * 16:
                trace_id = found.group(1)
        return Candidate(
            opted_in=opted_in,
            debug=opt_in == b"debug",
            session_id=session_id,
            tool=tool.decode("utf-8", "replace")[:255] if tool else None,
            trace_id=trace_id,
            key_id=_key_id(headers),
            web=self._web(headers, session_id),
        )

    def _web(self, headers: Headers, session_id: str | None) -> bool:
        if header(headers, self.client_header) == self.web_client:
            return True
        if session_id is None:
            cookie = header(headers, b"cookie") or b""
            return any(name + b"=" in cookie for name in self.session_cookies)
        return False

    def settle(self, candidate: Candidate, principal: Principal | None) -> bool:
        """Whether the answered request is traced: an authenticated caller, and a rule says so."""
        if principal is None:
            return False
        if candidate.opted_in:
            return True
        if principal.id in self.principals:
            return True
        if principal.key_id is not None and principal.key_id in self.api_keys:
            return True
        return self.settings.trace_all and (self.settings.include_web or not candidate.web)


def _key_id(headers: Headers) -> str | None:
    """The API key id of the request's credential, read from its text (no lookup)."""
    value = header(headers, b"authorization")
    if value is not None:
        scheme, _, key = value.decode("latin-1").partition(" ")
        return api_key_id(key.strip()) if scheme.lower() == "bearer" else None
    key_header = header(headers, b"x-api-key")
    return api_key_id(key_header.decode("latin-1").strip()) if key_header else None
