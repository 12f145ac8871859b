"""Where the clients connect and how they present themselves: defaults from the environment."""

from __future__ import annotations

import os

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


def client_headers(api_key: str | None) -> dict[str, str]:
    """Headers of every request: the user agent and, with a key, `Authorization: Bearer`."""
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
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
