"""Webhook receivers for the tests: real HTTP/1.1 servers on loopback, each in its own thread.

A `Receiver` records every connection it accepts and every request it reads, and answers each
request as its `behaviour` says: an `Answer` (a status and headers), or a fault (`HANG` accepts
the request and never answers, `DROP` closes without a word, `HALF` closes midway through the
status line). `Answers` plays a DNS server for `HttpxSender`'s resolver.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Received:
    """One request as the receiver read it."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class Answer:
    """A status and headers to answer with after `delay_s` (an empty body unless
    `content_length` promises one, which never comes)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    content_length: int = 0
    delay_s: float = 0.0


Fault = Literal["hang", "drop", "half"]
HANG: Fault = "hang"
DROP: Fault = "drop"
HALF: Fault = "half"
Behaviour = Callable[[Received], Answer | Fault]


class Receiver:
    """A loopback HTTP server that records what reaches it; use as a context manager."""

    def __init__(
        self,
        behaviour: Behaviour | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.behaviour: Behaviour = behaviour or (lambda _: Answer())
        self.host = host
        self.port = port
        self.connections = 0
        self.requests: list[Received] = []
        self.answered: list[tuple[Received, int, float]] = []
        """Each answer written: the request, the status, when (time.monotonic())."""
        self.server_names: list[str | None] = []
        self._tls = tls
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._stopping: asyncio.Event | None = None
        if tls is not None:
            tls.sni_callback = self._record_server_name

    @property
    def url(self) -> str:
        """The receiver's base URL by address."""
        scheme = "https" if self._tls else "http"
        return f"{scheme}://{self.host}:{self.port}"

    def __enter__(self) -> Receiver:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def __exit__(self, *_: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    async def _start(self) -> None:
        self._stopping = asyncio.Event()
        self._server = await asyncio.start_server(self._serve, self.host, self.port, ssl=self._tls)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        assert self._server is not None
        assert self._stopping is not None
        self._stopping.set()
        self._server.close()
        await self._server.wait_closed()

    def _record_server_name(self, _: ssl.SSLObject, name: str | None, __: ssl.SSLContext) -> None:
        with self._lock:
            self.server_names.append(name)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with self._lock:
            self.connections += 1
        try:
            while (received := await _read_request(reader)) is not None:
                with self._lock:
                    self.requests.append(received)
                action = self.behaviour(received)
                if action == HANG:
                    assert self._stopping is not None
                    await self._stopping.wait()
                    return
                if action == DROP:
                    return
                if action == HALF:
                    writer.write(b"HTTP/1.1 20")
                    await writer.drain()
                    return
                assert isinstance(action, Answer)
                if action.delay_s:
                    await asyncio.sleep(action.delay_s)
                writer.write(_response(action))
                await writer.drain()
                with self._lock:
                    self.answered.append((received, action.status, time.monotonic()))
                if action.content_length:
                    assert self._stopping is not None
                    await self._stopping.wait()  # promise a body and never send it
                    return
        except (ConnectionError, ssl.SSLError):
            return
        finally:
            writer.close()


async def _read_request(reader: asyncio.StreamReader) -> Received | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        return None
    request_line, *lines = head.decode("latin-1").split("\r\n")
    method, target, _ = request_line.split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return Received(method=method, target=target, headers=headers, body=body)


def _response(answer: Answer) -> bytes:
    lines = [f"HTTP/1.1 {answer.status} X", f"Content-Length: {answer.content_length}"]
    lines += [f"{name}: {value}" for name, value in answer.headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def closed_port() -> int:
    """A loopback port nothing listens on (connections to it are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@contextmanager
def unanswered_port() -> Iterator[int]:
    """A loopback port whose listen queue is full: a connection to it is never accepted."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port: int = listener.getsockname()[1]
        fillers = [socket.socket() for _ in range(4)]
        try:
            for filler in fillers:
                filler.setblocking(False)
                with suppress(BlockingIOError):
                    filler.connect(("127.0.0.1", port))
            yield port
        finally:
            for filler in fillers:
                filler.close()


class Answers:
    """A resolver that answers from a table: each host's answers in turn, the last one repeated."""

    def __init__(self, table: dict[str, Sequence[Sequence[str]]], *, delay_s: float = 0) -> None:
        self.table = table
        self.delay_s = delay_s
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int) -> Sequence[str]:
        """Answer for `host`, as the system resolver would."""
        self.calls.append(host)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        answers = self.table.get(host)
        if answers is None:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        seen = sum(1 for call in self.calls if call == host)
        return answers[min(seen, len(answers)) - 1]


def self_signed(directory: Path, name: str) -> tuple[Path, Path]:
    """A certificate for `name` (and a key), signed by itself; returns (cert file, key file)."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file = directory / f"{name}.pem"
    key_file = directory / f"{name}.key"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


def server_tls(cert_file: Path, key_file: Path) -> ssl.SSLContext:
    """A server TLS context presenting the certificate."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    return context
