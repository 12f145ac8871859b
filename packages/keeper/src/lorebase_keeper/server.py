"""Keeper's HTTP server: uvicorn with deadlines for every part of a request (docs/api.md).

uvicorn closes a connection that stays idle after an answer (`timeout_keep_alive`), but on its
own it waits forever for the first request of a new connection, for headers that trickle in, and
for a body shorter than its Content-Length. `KeeperH11Protocol` adds those deadlines
(keeper.http):

- a connection with no request under way closes after `keep_alive_s`, new ones included;
- the headers of a request must be complete `header_timeout_s` after its first byte, or the
  answer is 408 and the connection closes;
- the body must be complete `body_timeout_s` after the headers: `BodyLimit` (limits.py) answers
  408 request-timeout for the bodies routes read, and the protocol closes the connection a
  moment later for the bodies nobody reads (a GET with a Content-Length, a refused upload).

The header size is bounded by h11 (16 KiB, else 400), the connections and requests served at once
by `max_connections` (503 past it). `server_config` is what `lorebase serve` runs, and it checks
the address it binds like `create_app` checks keeper.host (loopback.py).
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from typing import ClassVar, Literal

import h11
import uvicorn
import uvicorn.config
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from lorebase_core.errors import RequestTimeout
from lorebase_keeper.auth.loopback import require_safe_auth
from lorebase_platform.problems import PROBLEM_CONTENT_TYPE, problem_document
from lorebase_platform.settings import HttpSettings, Settings

logger = logging.getLogger("lorebase.keeper")

BODY_GRACE_S = 1.0
"""How much longer than body_timeout_s the protocol waits, so a route's 408 goes out first."""

Waiting = Literal["headers", "body"]


class KeeperH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for the headers and the body of each request."""

    http_limits: ClassVar[HttpSettings] = HttpSettings()

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, object],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting_for: Waiting | None = None

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        super().connection_made(transport)
        # uvicorn arms its keep-alive timer only after an answer: a silent client stayed forever
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive, self.timeout_keep_alive_handler
        )

    def data_received(self, data: bytes) -> None:
        if self._waiting_for is None and self.conn.their_state is h11.IDLE:
            self._wait_for("headers")
        super().data_received(data)
        self._follow_request()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self._wait_for(None)
        super().connection_lost(exc)

    def _follow_request(self) -> None:
        """Move the deadline along with the state of the client's side of the connection."""
        state = self.conn.their_state
        if state is h11.IDLE:
            if self._waiting_for == "body":  # that request is done; the next one has not begun
                self._wait_for(None)
            if self._waiting_for is None and self.conn.trailing_data[0]:
                self._wait_for("headers")  # a pipelined request, partly received
        elif state is h11.SEND_BODY:
            if self._waiting_for != "body":
                self._wait_for("body")
        else:
            self._wait_for(None)  # the request is complete, or the connection is closing

    def _wait_for(self, part: Waiting | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._waiting_for = part
        if part == "headers":
            self._deadline = self.loop.call_later(
                self.http_limits.header_timeout_s, self._headers_too_late
            )
        elif part == "body":
            self._deadline = self.loop.call_later(
                self.http_limits.body_timeout_s + BODY_GRACE_S, self._body_too_late
            )

    def _headers_too_late(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        seconds = self.http_limits.header_timeout_s
        logger.info("closing a connection whose request headers took over %g s", seconds)
        error = RequestTimeout(
            f"The request headers did not arrive within {seconds:g} s "
            "(keeper.http.header_timeout_s): send them at once"
        )
        body = json.dumps(problem_document(error)).encode()
        head = (
            "HTTP/1.1 408 Request Timeout\r\n"
            f"content-type: {PROBLEM_CONTENT_TYPE}\r\n"
            f"content-length: {len(body)}\r\n"
            "connection: close\r\n\r\n"
        )
        # h11 sends an answer only to a request it has parsed: this one never was
        self.transport.write(head.encode() + body)
        self.transport.close()

    def _body_too_late(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        logger.info(
            "closing a connection whose request body took over %g s",
            self.http_limits.body_timeout_s,
        )
        self.transport.close()


def protocol_class(limits: HttpSettings) -> type[KeeperH11Protocol]:
    """`KeeperH11Protocol` with the deadlines of `limits` (uvicorn builds one per connection)."""

    class ConfiguredProtocol(KeeperH11Protocol):
        http_limits = limits

    return ConfiguredProtocol


def server_config(
    app: ASGIApp,
    settings: Settings,
    *,
    host: str | None = None,
    port: int | None = None,
    log_level: str = "info",
) -> uvicorn.Config:
    """The uvicorn configuration Keeper runs under (host and port default to keeper.host/port).

    Raises:
        UnsafeSettings: auth mode `none` on an address that is not loopback.
    """
    listen = settings.keeper.host if host is None else host
    require_safe_auth(listen, settings.keeper.auth)
    limits = settings.keeper.http
    return uvicorn.Config(
        app,
        host=listen,
        port=settings.keeper.port if port is None else port,
        http=protocol_class(limits),
        ws="none",  # Keeper speaks no WebSocket (its streams are SSE)
        timeout_keep_alive=limits.keep_alive_s,
        limit_concurrency=limits.max_connections,
        # behind a reverse proxy: the client's address and scheme from X-Forwarded-*, taken only
        # from the proxies keeper.http.forwarded_allow_ips names
        proxy_headers=True,
        forwarded_allow_ips=limits.forwarded_allow_ips,
        log_level=log_level,
        log_config=_log_config(),
        # Keeper logs each answer by its route (lorebase.keeper.access); uvicorn's access log
        # would print paths and query strings, which hold keys and values
        access_log=False,
    )


def _log_config() -> dict[str, object]:
    """uvicorn's logging, with Keeper's own loggers on its default handler."""
    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    config["loggers"]["lorebase"] = {"handlers": ["default"], "level": "INFO"}
    return config
