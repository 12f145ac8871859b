"""Scribe's HTTP sender of webhook deliveries: one attempt, every rule of a target kept.

`HttpxSender.send` makes one attempt of an `OutgoingDelivery` under webhooks.timeout_s, host
lookup included: the URL's scheme must be in webhooks.allowed_schemes; the host is resolved once
and every address checked (unless webhooks.allow_private_targets, none may be private, loopback,
link-local or otherwise not public, see `lorebase_scribe.addresses`); the request goes to those
checked addresses only, in order, each connection given webhooks.connect_timeout_s, with the Host
header and the TLS server name kept to the host name, so a DNS answer that changes after the
check reaches nothing (and one connection pool per TLS host name, so a connection verified for
one name never carries another's). Redirects are never followed (a 3xx fails the attempt), the
response body is never read, and `Retry-After` (seconds or an HTTP date) becomes
`retry_after_s`. Errors say what happened in words fit for a delivery's last_error: never a
secret, a URL's path or query, a body.
"""

from __future__ import annotations

import asyncio
import email.utils
import ipaddress
import socket
import ssl
import time
from collections.abc import Awaitable, Callable, Sequence
from types import TracebackType

import httpx

from lorebase_core.addresses import IPAddress, address_refusal
from lorebase_platform.settings import WebhookSettings
from lorebase_scribe.addresses import Target, TargetRefused, parse_target
from lorebase_store import OutgoingDelivery, SendResult

__all__ = ["HttpxSender", "Resolver", "parse_retry_after", "system_resolver"]

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""Looks a host name up once: (host, port) -> its addresses, as text, in the order to try."""


async def system_resolver(host: str, port: int) -> Sequence[str]:
    """The event loop's getaddrinfo: the system's answer for `host`, addresses in its order."""
    loop = asyncio.get_running_loop()
    answers = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses: list[str] = []
    for *_, sockaddr in answers:
        text = str(sockaddr[0])
        if text not in addresses:
            addresses.append(text)
    return addresses


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """`Retry-After` in seconds from now: a number of seconds or an HTTP date; None if unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(int(text))
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class _Failed(Exception):
    """Ends an attempt with a result that has no status."""


class HttpxSender:
    """Sends webhook deliveries over HTTP, one attempt per `send`, keeping every target rule.

    Args:
        settings: the webhooks section (allowed_schemes, allow_private_targets, timeout_s,
            connect_timeout_s, concurrency).
        client: a client to send every delivery with; it must be built with `trust_env=False`
            (no proxy from the environment), and, since its pool keys connections by address,
            should serve one TLS host name only. By default the sender builds its own clients
            so, one per TLS host name (a connection verified for one name is never reused for
            another at the same address), and closes them in `aclose`.
        resolver: how a host name is looked up (default: the event loop's getaddrinfo).
        verify: the TLS verification of the clients the sender builds (True: the system's
            certificate authorities; an `ssl.SSLContext` to trust others).
    """

    def __init__(
        self,
        settings: WebhookSettings,
        *,
        client: httpx.AsyncClient | None = None,
        resolver: Resolver | None = None,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        self._settings = settings
        self._resolver = resolver or system_resolver
        self._timeout = httpx.Timeout(settings.timeout_s, connect=settings.connect_timeout_s)
        self._given = client
        self._verify = verify
        self._clients: dict[str, httpx.AsyncClient] = {}

    def _client_for(self, target: Target) -> httpx.AsyncClient:
        """The given client, or the sender's own for the target's TLS host name ("" for http)."""
        if self._given is not None:
            return self._given
        name = target.host if target.scheme == "https" else ""
        client = self._clients.get(name)
        if client is None:
            client = self._clients[name] = httpx.AsyncClient(
                trust_env=False,
                follow_redirects=False,
                verify=self._verify,
                timeout=self._timeout,
                limits=httpx.Limits(max_connections=max(self._settings.concurrency, 8)),
            )
        return client

    async def __aenter__(self) -> HttpxSender:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the clients the sender built (never a given one)."""
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()

    async def send(self, delivery: OutgoingDelivery) -> SendResult:
        """POST the delivery once under webhooks.timeout_s; never raises for network or receiver."""
        try:
            target = parse_target(delivery.url, self._settings.allowed_schemes)
        except TargetRefused as refused:
            return SendResult(status=None, error=str(refused))
        stage = ["looking up"]
        try:
            async with asyncio.timeout(self._settings.timeout_s):
                return await self._attempt(target, delivery, stage)
        except TimeoutError:
            return SendResult(status=None, error=self._timeout_error(target, stage[0]))
        except (TargetRefused, _Failed) as failed:
            return SendResult(status=None, error=str(failed))

    def _timeout_error(self, target: Target, stage: str) -> str:
        limit = f"{self._settings.timeout_s} s (webhooks.timeout_s)"
        if stage == "looking up":
            return f"the host lookup of {target.host!r} took longer than {limit}"
        return f"no answer from {stage} within {limit}"

    async def _attempt(
        self, target: Target, delivery: OutgoingDelivery, stage: list[str]
    ) -> SendResult:
        addresses = await self._addresses(target)
        failures: list[str] = []
        for address in addresses:
            where = _where(address, target.port)
            stage[0] = where
            try:
                return await self._post(target, address, delivery)
            except httpx.ConnectError as exc:
                failures.append(_connect_failure(exc, where))
            except httpx.ConnectTimeout:
                limit = f"{self._settings.connect_timeout_s} s (webhooks.connect_timeout_s)"
                failures.append(f"no connection to {where} within {limit}")
            except httpx.TimeoutException:
                raise TimeoutError from None
            except httpx.InvalidURL:
                failures.append(f"no connection to {where} (not an address a URL can hold)")
            except (httpx.HTTPError, OSError) as exc:
                raise _Failed(_after_connect_failure(exc, where)) from None
        raise _Failed("; ".join(failures))

    async def _addresses(self, target: Target) -> list[IPAddress]:
        if target.address is not None:
            found = [target.address]
        else:
            if not self._settings.allow_private_targets and _is_localhost(target.host):
                raise TargetRefused(
                    f"target {target.host!r} is a loopback name (webhooks.allow_private_targets)"
                )
            try:
                answer = await self._resolver(target.host, target.port)
            except OSError as exc:
                reason = exc.strerror or type(exc).__name__
                raise _Failed(f"the host lookup of {target.host!r} failed ({reason})") from None
            found = [_address(text, target.host) for text in answer]
            if not found:
                raise _Failed(f"the host {target.host!r} has no address")
        if not self._settings.allow_private_targets:
            for address in found:
                refusal = address_refusal(address)
                if refusal is not None:
                    raise TargetRefused(
                        f"target resolves to {address}, {refusal} (webhooks.allow_private_targets)"
                    )
        return found

    async def _post(
        self, target: Target, address: IPAddress, delivery: OutgoingDelivery
    ) -> SendResult:
        headers = dict(delivery.headers)
        headers["Host"] = target.host_header
        extensions = {}
        if target.scheme == "https" and target.address is None:
            extensions["sni_hostname"] = target.host
        client = self._client_for(target)
        request = client.build_request(
            "POST",
            target.url.copy_with(host=str(address)),
            headers=headers,
            content=delivery.body,
            extensions=extensions,
            timeout=self._timeout,
        )
        response = await client.send(request, stream=True, follow_redirects=False)
        try:
            status = response.status_code
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            if _without_body(response):
                await response.aread()  # nothing to read: the connection goes back to the pool
        finally:
            await response.aclose()
        if 200 <= status < 300:
            return SendResult(status=status, retry_after_s=retry_after)
        if 300 <= status < 400:
            error = f"{_where(address, target.port)} answered {status}, a redirect (never followed)"
        else:
            error = f"{_where(address, target.port)} answered {status}"
        return SendResult(status=status, error=error, retry_after_s=retry_after)


def _without_body(response: httpx.Response) -> bool:
    """Whether the answer says it has no body (any other body is never read: the connection
    is closed instead of reused)."""
    length = response.headers.get("content-length")
    return response.status_code in (204, 304) or (length is not None and length.strip() == "0")


def _is_localhost(host: str) -> bool:
    return host == "localhost" or host.endswith(".localhost")


def _address(text: str, host: str) -> IPAddress:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        raise _Failed(f"the host lookup of {host!r} answered something not an address") from None


def _where(address: IPAddress, port: int) -> str:
    return f"[{address}]:{port}" if address.version == 6 else f"{address}:{port}"


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 8:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _connect_failure(exc: httpx.ConnectError, where: str) -> str:
    for cause in _causes(exc):
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"TLS with {where} failed: {cause.verify_message or 'certificate not trusted'}"
        if isinstance(cause, ssl.SSLError):
            return f"TLS with {where} failed ({cause.reason or 'handshake error'})"
        if isinstance(cause, ConnectionRefusedError):
            return f"connection refused by {where}"
        if isinstance(cause, OSError) and cause.strerror:
            return f"no connection to {where} ({cause.strerror})"
    return f"no connection to {where}"


def _after_connect_failure(exc: BaseException, where: str) -> str:
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return f"{where} closed the connection before answering"
    return f"the exchange with {where} failed ({type(exc).__name__})"
