# generated from _async/base.py by scripts/unasync.py; do not edit
"""`ClientBase`: the connection of `LorebaseClient`, which its method groups share.

It holds the httpx client (and the `trace` and `webhooks` calls that use it) and turns a route
of routes.py into an answer of answers.py: JSON, Markdown text, or the items of every page.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import TracebackType
from typing import Any, Self

import httpx

from lorebase_client import routes
from lorebase_client._sync.trace import TraceCalls
from lorebase_client._sync.webhooks import WebhookCalls
from lorebase_client.answers import Answer, Text, json_answer, text_answer
from lorebase_client.connection import (
    DEFAULT_TIMEOUT,
    TraceMode,
    build_request,
    client_headers,
    key_unused,
    resolve_api_key,
    resolve_base_url,
)
from lorebase_client.routes import ApiRequest


class ClientBase:
    """An httpx client to Keeper, and how a request becomes an answer (`LorebaseClient`)."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        session_id: str | None = None,
        trace: TraceMode | None = None,
        tool: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = resolve_base_url(base_url)
        self._http = httpx.Client(
            base_url=self.base_url,
            headers=client_headers(
                resolve_api_key(api_key), session_id=session_id, trace=trace, tool=tool
            ),
            timeout=timeout,
            transport=transport,
        )
        self.key_unused = False
        """True once Keeper answered a request of this client without using its API key: it
        runs in auth mode `none`, where every request acts as the local administrator."""
        self.trace = TraceCalls(self._json)
        """The agent trace: `add_note`, `session`, `sessions` (docs/trace.md)."""
        self.webhooks = WebhookCalls(self._json)
        """A Domain's webhooks and their deliveries (docs/feed.md)."""

    def close(self) -> None:
        """Close the connections (the client is not usable afterwards)."""
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _send(self, request: ApiRequest) -> httpx.Response:
        response = self._http.send(build_request(self._http, request))
        self.key_unused = self.key_unused or key_unused(response)
        return response

    def _json(self, request: ApiRequest) -> Answer:
        return json_answer(self._send(request))

    def _text(self, request: ApiRequest) -> Text:
        return text_answer(self._send(request))

    def _answer(self, request: ApiRequest) -> Answer | Text:
        """The answer as the route expects it: Markdown text (`format="markdown"`) or JSON."""
        if request.expect == "markdown":
            return self._text(request)
        return self._json(request)

    def _items(self, request: ApiRequest | None, member: str) -> Iterator[dict[str, Any]]:
        """The items of every page, from `request` on (see `routes.next_page`)."""
        while request is not None:
            answer = self._json(request)
            yield from routes.page_items(answer, member)
            request = routes.next_page(request, answer)
