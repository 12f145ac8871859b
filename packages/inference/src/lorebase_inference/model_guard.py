"""A pytest plugin failing every test that reaches a real model without being marked `model`.

Loaded by the repository's root `conftest.py` (`pytest_plugins`), or with
`pytest -p lorebase_inference.model_guard`. While a test runs (its setup, call and teardown):

- a TCP connection from this process to an address that is not loopback (127.0.0.0/8, ::1,
  the unspecified address, which reaches this machine, or a link-local address scoped to the
  loopback interface) is refused, whatever client makes it
  (httpx, urllib, asyncio streams): a hosted model endpoint is out of reach;
- a connection to the port of a running `LocalModelServer` (the real llama.cpp model) is
  refused too, even though it is on loopback;
- `LocalModelServer.start` refuses to start on a GGUF model file (a missing or bogus file,
  which serves no model, is left to fail as it does).

Tests marked `model` may do all three. A refused connection raises `ConnectionRefusedError`
in the code under test and, since that code may well turn it into a tidy error of its own, the
test fails afterwards anyway, with a message naming the address. Scripted model servers,
Keeper under uvicorn and every other loopback server of the tests are not affected.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

from lorebase_inference.local_model import LocalModelServer

__all__ = ["local_model_ports"]

_INET = (socket.AF_INET, socket.AF_INET6)

local_model_ports: set[int] = set()
"""Loopback ports of the `LocalModelServer`s running in this process."""


class _Guard:
    def __init__(self) -> None:
        self.item: pytest.Item | None = None
        self.violations: list[str] = []

    def allows_models(self) -> bool:
        """Outside a test (collection, session start) or in a `model` test: no guard."""
        return self.item is None or self.item.get_closest_marker("model") is not None

    def refuse(self, what: str) -> None:
        message = (
            f"{what}: a test that is not marked `model` must not reach a real model or another "
            "machine (use lorebase_inference.testing.ScriptedModelServer, or mark the test "
            "@pytest.mark.model)"
        )
        self.violations.append(message)
        raise ConnectionRefusedError(errno.ECONNREFUSED, message)

    def check(self, sock: socket.socket, address: Any) -> None:
        if sock.family not in _INET or self.allows_models():
            return
        if not isinstance(address, tuple) or len(address) < 2:  # pragma: no cover - AF_INET
            return
        host, port = str(address[0]), int(address[1])
        scope = address[3] if len(address) > 3 else 0
        if not all(_local(found, scope) for found in _addresses(host, port)):
            self.refuse(f"connection to {host}:{port}, which is not a loopback address")
        if port in local_model_ports:
            self.refuse(f"connection to the real model server (LocalModelServer) on port {port}")


_guard = _Guard()
_originals: dict[str, Callable[..., Any]] = {}


def _addresses(host: str, port: int) -> list[str]:
    """The IP addresses `host` stands for (itself when it is one)."""
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
        return [host]
    except ValueError:
        pass
    try:
        return [
            str(info[4][0]) for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
        ]
    except OSError:
        return [host]  # it will not connect either; leave the error to the connection


def _local(address: str, scope: object = 0) -> bool:
    """Loopback, the unspecified address, or a link-local one on the loopback interface."""
    bare, _, named_scope = address.partition("%")
    try:
        ip = ipaddress.ip_address(bare)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback or ip.is_unspecified:
        return True
    return ip.is_link_local and _loopback_interface(named_scope or scope)


def _loopback_interface(scope: object) -> bool:
    """`scope` (an interface index or name) is the loopback interface (`lo`)."""
    try:
        name = socket.if_indextoname(int(str(scope))) if str(scope).isdigit() else str(scope)
    except (OSError, ValueError):
        return False
    return name == "lo" or name.startswith("lo0")


def _guarded_connect(self: socket.socket, address: Any) -> None:
    _guard.check(self, address)
    _originals["connect"](self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    _guard.check(self, address)
    result: int = _originals["connect_ex"](self, address)
    return result


def _guarded_start(self: LocalModelServer) -> None:
    if not _guard.allows_models() and _is_gguf(self.gguf):
        message = (
            f"LocalModelServer started on the model {self.gguf.name!r} by a test that is not "
            "marked `model`: mark it @pytest.mark.model (or use ScriptedModelServer)"
        )
        _guard.violations.append(message)
        raise RuntimeError(message)
    _originals["start"](self)
    port = _port_of(self)
    if port is not None:
        local_model_ports.add(port)


def _guarded_close(self: LocalModelServer) -> None:
    port = _port_of(self)
    try:
        _originals["close"](self)
    finally:
        if port is not None:
            local_model_ports.discard(port)


def _is_gguf(path: Path) -> bool:
    """A real model file (GGUF's magic number); a missing or bogus file starts no model."""
    try:
        with path.open("rb") as file:
            return file.read(4) == b"GGUF"
    except OSError:
        return False


def _port_of(server: LocalModelServer) -> int | None:
    try:
        return int(server.base_url.rsplit(":", 1)[1].split("/", 1)[0])
    except (RuntimeError, ValueError, IndexError):
        return None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "model: needs a real chat model: scripts/fetch-model.sh")
    if _originals:
        return
    _originals.update(
        connect=socket.socket.connect,
        connect_ex=socket.socket.connect_ex,
        start=LocalModelServer.start,
        close=LocalModelServer.close,
    )
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign, assignment]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign, assignment]
    LocalModelServer.start = _guarded_start  # type: ignore[method-assign]
    LocalModelServer.close = _guarded_close  # type: ignore[method-assign]


def pytest_unconfigure(config: pytest.Config) -> None:
    if not _originals:
        return
    socket.socket.connect = _originals["connect"]  # type: ignore[method-assign]
    socket.socket.connect_ex = _originals["connect_ex"]  # type: ignore[method-assign]
    LocalModelServer.start = _originals["start"]  # type: ignore[method-assign]
    LocalModelServer.close = _originals["close"]  # type: ignore[method-assign]
    _originals.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    _guard.item = item
    try:
        return (yield)
    finally:
        _guard.item = None


def _phase() -> Generator[None, object, object]:
    _guard.violations.clear()
    try:
        return (yield)
    finally:
        if _guard.violations:
            found, _guard.violations[:] = list(_guard.violations), []
            pytest.fail("\n".join(dict.fromkeys(found)), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _phase())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _phase())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    return (yield from _phase())
