"""Where the clients connect and how they present themselves: defaults from the environment."""

from __future__ import annotations

import os
import re
from typing import Literal

import httpx

from lorebase_client.routes import ApiRequest

VERSION = "0.1.0"
URL_ENV = "LOREBASE_URL"
API_KEY_ENV = "LOREBASE_API_KEY"
DEFAULT_URL = "http://127.0.0.1:8080"
DEFAULT_TIMEOUT = 30.0
USER_AGENT = f"lorebase-client/{VERSION}"
AUTH_MODE_HEADER = "Lorebase-Auth"
"""Keeper in auth mode `none` answers every request with `Lorebase-Auth: none`."""


def resolve_base_url(base_url: str | None) -> str:
    """`base_url`, else $LOREBASE_URL, else Keeper's default address on this machine."""
    return base_url or os.environ.get(URL_ENV) or DEFAULT_URL


def resolve_api_key(api_key: str | None) -> str | None:
    """`api_key`, else $LOREBASE_API_KEY, else None (Keeper in auth mode `none` needs none)."""
    return api_key or os.environ.get(API_KEY_ENV) or None


def key_unused(response: httpx.Response) -> bool:
    """Whether a request sent with an API key reached a Keeper that did not use it (auth mode
    `none`: every request acts as the local administrator, whatever key it carries)."""
    sent = "Authorization" in response.request.headers
    return sent and response.headers.get(AUTH_MODE_HEADER) == "none"


SESSION_HEADER = "X-Lorebase-Session"
TRACE_HEADER = "X-Lorebase-Trace"
TOOL_HEADER = "X-Lorebase-Tool"
"""The agent trace's headers, Keeper's defaults (keeper.trace.*_header; docs/trace.md)."""
SESSION_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
"""A session id, as Keeper takes it: 1 to 128 characters of A-Z a-z 0-9 . _ : -."""

TraceMode = Literal["on", "debug"]
"""`X-Lorebase-Trace`: on, or debug to add query plans (needs trace.explain)."""


def trace_headers(
    session_id: str | None, trace: TraceMode | None, tool: str | None
) -> dict[str, str]:
    """The agent trace's headers of every request of a client (docs/trace.md).

    Raises:
        ValueError: a session id Keeper would not take (it would not trace the request), a
            trace mode other than on and debug, or a tool name that cannot be a header.
    """
    headers: dict[str, str] = {}
    if session_id is not None:
        if SESSION_ID.fullmatch(session_id) is None:
            raise ValueError(
                f"session_id {session_id!r} is not 1 to 128 characters of A-Z a-z 0-9 . _ : -"
            )
        headers[SESSION_HEADER] = session_id
    if trace is not None:
        if trace not in ("on", "debug"):
            raise ValueError(f"trace must be 'on', 'debug' or None, not {trace!r}")
        headers[TRACE_HEADER] = trace
    if tool is not None:
        if not tool or not tool.isprintable() or not tool.isascii():
            raise ValueError(f"tool {tool!r} cannot be sent as a header: use printable ASCII")
        headers[TOOL_HEADER] = tool
    return headers


def client_headers(
    api_key: str | None,
    *,
    session_id: str | None = None,
    trace: TraceMode | None = None,
    tool: str | None = None,
) -> dict[str, str]:
    """Headers of every request: the user agent, with a key `Authorization: Bearer`, and the
    agent trace's headers that are given (`trace_headers`)."""
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    headers.update(trace_headers(session_id, trace, tool))
    return headers


def build_request(http: httpx.Client | httpx.AsyncClient, request: ApiRequest) -> httpx.Request:
    """The httpx request of an `ApiRequest`, on the base URL and headers of `http`."""
    headers = dict(request.headers)
    if request.etag is not None:
        headers["If-None-Match"] = request.etag
    if request.expect == "markdown":
        headers["Accept"] = "text/markdown, application/problem+json"
    return http.build_request(
        request.method,
        request.path,
        params=request.params or None,
        json=request.body,
        headers=headers,
    )
