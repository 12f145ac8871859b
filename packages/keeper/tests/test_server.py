"""Keeper's HTTP deadlines over real sockets: a real uvicorn on 127.0.0.1, a port the system picks.

Each test speaks raw HTTP/1.1 to the server `server_config` builds, the way a slow or hostile
client would, and checks the connection is answered 408 and closed, or closed, in time.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
import pytest
import uvicorn
from packages.keeper.tests.auth.test_loopback import clean_environment, serve_process
from packages.keeper.tests.conftest import client_of

from lorebase_keeper.app import create_app
from lorebase_keeper.server import BODY_GRACE_S, server_config
from lorebase_keeper.testing import assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store

HEADER_TIMEOUT_S = 0.5
BODY_TIMEOUT_S = 0.5
KEEP_ALIVE_S = 1
SLACK_S = 1.5
"""How much later than its deadline a connection may close (a loaded test machine)."""


def _settings(**http: object) -> Settings:
    limits = {
        "header_timeout_s": HEADER_TIMEOUT_S,
        "body_timeout_s": BODY_TIMEOUT_S,
        "keep_alive_s": KEEP_ALIVE_S,
        **http,
    }
    return Settings(keeper={"auth": {"mode": "none"}, "http": limits})


@dataclass(frozen=True)
class Address:
    host: str
    port: int

    def connect(self) -> socket.socket:
        connection = socket.create_connection((self.host, self.port), timeout=10)
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection


@pytest.fixture
def keeper_store(tmp_path: Path) -> Iterator[Store]:
    store = Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    yield store
    store.close()


@contextmanager
def serving(settings: Settings, store: Store) -> Iterator[Address]:
    """Keeper under `server_config` in a thread; yields the address it listens on."""
    config = server_config(create_app(settings, store=store), settings, port=0, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="keeper", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive(), "Keeper stopped before it started listening"
        assert time.monotonic() < deadline, "Keeper did not start listening within 30 s"
        time.sleep(0.01)
    host, port = server.servers[0].sockets[0].getsockname()[:2]
    try:
        yield Address(str(host), int(port))
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture
def keeper_address(keeper_store: Store) -> Iterator[Address]:
    with serving(_settings(), keeper_store) as address:
        yield address


@dataclass(frozen=True)
class Received:
    data: bytes
    closed: bool
    seconds: float

    @property
    def status(self) -> int:
        return int(self.data.split(b" ", 2)[1])

    def document(self) -> dict[str, object]:
        return dict(json.loads(self.data.partition(b"\r\n\r\n")[2]))


def receive_until_closed(connection: socket.socket, within_s: float) -> Received:
    """What the server sends until it closes the connection, or `within_s` passes."""
    started = time.monotonic()
    data = b""
    while (left := within_s - (time.monotonic() - started)) > 0:
        connection.settimeout(left)
        try:
            chunk = connection.recv(65536)
        except TimeoutError:
            break
        except ConnectionResetError:
            return Received(data, True, time.monotonic() - started)
        if not chunk:
            return Received(data, True, time.monotonic() - started)
        data += chunk
    return Received(data, False, time.monotonic() - started)


def test_a_body_shorter_than_its_content_length_is_answered_408_and_closed(
    keeper_address: Address,
) -> None:
    with keeper_address.connect() as connection:
        connection.sendall(
            b"POST /api/v1/domains/supply/query HTTP/1.1\r\nHost: keeper\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        received = receive_until_closed(connection, BODY_TIMEOUT_S + SLACK_S)
    assert received.closed, received
    assert received.status == 408
    assert b"connection: close" in received.data.lower()
    document = received.document()
    assert (document["status"], document["code"]) == (408, "request-timeout")
    assert "keeper.http.body_timeout_s" in str(document["detail"])


def test_a_body_nobody_reads_is_still_cut_off(keeper_address: Address) -> None:
    with keeper_address.connect() as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: keeper\r\nContent-Length: 1000\r\n\r\n")
        started = time.monotonic()
        answered = b""
        closed = False
        # the answer comes at once; trickling the rest of the body keeps nothing open
        while time.monotonic() - started < BODY_TIMEOUT_S + BODY_GRACE_S + SLACK_S:
            try:
                connection.sendall(b"x")
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            received = receive_until_closed(connection, 0.1)
            answered += received.data
            if received.closed:
                closed = True
                break
    assert answered.startswith(b"HTTP/1.1 200 ")
    assert closed


def test_headers_that_trickle_in_are_answered_408_and_closed(keeper_address: Address) -> None:
    with keeper_address.connect() as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: keeper\r\n")
        started = time.monotonic()
        received = Received(b"", False, 0.0)
        while time.monotonic() - started < HEADER_TIMEOUT_S + SLACK_S:
            try:
                connection.sendall(b"X-Slow: still here\r\n")
            except (BrokenPipeError, ConnectionResetError):
                rest = receive_until_closed(connection, 0.5)  # what the server sent before
                received = Received(received.data + rest.data, True, received.seconds)
                break
            # the 408 and the close may come in different rounds: keep what came before
            more = receive_until_closed(connection, 0.1)
            received = Received(received.data + more.data, more.closed, more.seconds)
            if received.closed:
                break
    assert received.closed, received
    assert received.status == 408
    document = received.document()
    assert document["code"] == "request-timeout"
    assert "keeper.http.header_timeout_s" in str(document["detail"])


def test_an_idle_keep_alive_connection_is_closed(keeper_address: Address) -> None:
    with keeper_address.connect() as connection:
        for _ in range(2):  # the connection is kept for a second request, then closed when idle
            connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: keeper\r\n\r\n")
            answer = receive_until_closed(connection, 0.3)
            assert answer.data.startswith(b"HTTP/1.1 200 "), answer
            assert not answer.closed
        idle = receive_until_closed(connection, KEEP_ALIVE_S + SLACK_S)
    assert idle.closed
    assert idle.data == b""


def test_a_connection_that_never_sends_a_request_is_closed(keeper_address: Address) -> None:
    with keeper_address.connect() as connection:
        silent = receive_until_closed(connection, KEEP_ALIVE_S + SLACK_S)
    assert silent.closed
    assert silent.data == b""


def test_requests_sent_in_time_are_answered(keeper_address: Address) -> None:
    url = f"http://{keeper_address.host}:{keeper_address.port}"
    with httpx.Client(base_url=url, timeout=10) as client:
        assert client.get("/healthz").status_code == 200
        answer = client.post("/api/v1/domains/supply/query", json={"kind": "Supplier"})
        assert_problem(answer, 404, "domain-not-found")


def test_connections_past_max_connections_are_answered_503(keeper_store: Store) -> None:
    with serving(_settings(max_connections=2), keeper_store) as address:
        with address.connect(), address.connect() as second:
            time.sleep(0.1)  # both are accepted and idle
            second.sendall(b"GET /healthz HTTP/1.1\r\nHost: keeper\r\n\r\n")
            assert receive_until_closed(second, 0.5).data.startswith(b"HTTP/1.1 503 ")
        # the 503 closed the second; with the first gone too, a new connection is served
        time.sleep(0.2)
        with address.connect() as third:
            third.sendall(b"GET /healthz HTTP/1.1\r\nHost: keeper\r\n\r\n")
            assert receive_until_closed(third, 0.5).data.startswith(b"HTTP/1.1 200 ")


def test_a_stalled_body_is_a_408_in_process_too(keeper_store: Store) -> None:
    """BodyLimit itself, under any ASGI server."""

    async def run() -> httpx.Response:
        async def stalled() -> AsyncIterator[bytes]:
            yield b'{"kind": '
            await anyio.sleep(BODY_TIMEOUT_S * 4)
            yield b'"Supplier"}'

        app = create_app(_settings(), store=keeper_store)
        async with client_of(app) as http:
            return await http.post("/api/v1/domains/supply/query", content=stalled())

    started = time.monotonic()
    response = anyio.run(run)
    assert time.monotonic() - started < BODY_TIMEOUT_S * 3
    assert_problem(response, 408, "request-timeout")
    assert response.headers["connection"] == "close"


def test_lorebase_serve_runs_with_the_deadlines(tmp_path: Path) -> None:
    environment = clean_environment(
        tmp_path, http__keep_alive_s=str(KEEP_ALIVE_S), http__header_timeout_s="0.5"
    )
    log = tmp_path / "keeper.log"
    with serve_process(["--auth", "none", "--port", "0"], environment, log) as url:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        address = Address(host, int(port))
        with address.connect() as silent:
            assert receive_until_closed(silent, KEEP_ALIVE_S + SLACK_S).closed
        with address.connect() as slow:
            slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: keeper\r\n")
            late = receive_until_closed(slow, HEADER_TIMEOUT_S + SLACK_S)
        assert late.closed
        assert late.status == 408
