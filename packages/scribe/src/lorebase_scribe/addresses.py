"""Which webhook targets the sender may reach: the URL's parts and the addresses it may connect to.

A target is refused before any connection when its scheme is not in webhooks.allowed_schemes,
its port or host is malformed, or (unless webhooks.allow_private_targets) any address it names or
resolves to is not a public unicast address. Hosts are read the way a system resolver would read
them, so every notation of an IPv4 address (`2130706433`, `0x7f.1`, `127.1`, `0177.0.0.1`) is the
address it spells, never a name to look up; IPv6 forms that carry an IPv4 address (mapped,
NAT64, 6to4) are judged by that address.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

import httpx

from lorebase_core.addresses import NUMERIC_HOST, IPAddress, numeric_ipv4

__all__ = ["Target", "TargetRefused", "parse_target"]

_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class TargetRefused(Exception):
    """A target the rules forbid; the message says why and names the setting that decides it."""


@dataclass(frozen=True)
class Target:
    """A webhook URL taken apart for one attempt.

    Attributes:
        url: the URL without user info or fragment (never logged: its query may hold a token).
        scheme: `http` or `https`.
        host: the host as it goes in the Host header and the TLS server name (lowercase, IDNA,
            no trailing dot).
        port: the port to connect to.
        address: the address the host spells when it is an address literal, else None.
    """

    url: httpx.URL
    scheme: str
    host: str
    port: int
    address: IPAddress | None

    @property
    def host_header(self) -> str:
        """The Host header: the host, bracketed when IPv6, with the port when not the default."""
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return shown if self.port == _DEFAULT_PORTS[self.scheme] else f"{shown}:{self.port}"


def parse_target(url: str, allowed_schemes: list[str]) -> Target:
    """Take a webhook URL apart, or raise `TargetRefused` saying what is wrong with it."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise TargetRefused(f"the target is not a valid URL ({_reason(exc)})") from None
    scheme = parsed.scheme.lower()
    if scheme not in {s.lower() for s in allowed_schemes}:
        allowed = ", ".join(allowed_schemes) or "none"
        raise TargetRefused(
            f"scheme {scheme!r} is not allowed (webhooks.allowed_schemes: {allowed})"
        )
    if scheme not in _DEFAULT_PORTS:
        raise TargetRefused(f"scheme {scheme!r} cannot be sent over HTTP; use http or https")
    port = parsed.port if parsed.port is not None else _DEFAULT_PORTS[scheme]
    if not 1 <= port <= 65535:
        raise TargetRefused(f"port {port} is out of range (1 to 65535)")
    host, address = _parse_host(parsed.raw_host.decode("ascii").lower())
    clean = parsed.copy_with(username=None, password=None, fragment=None)
    return Target(url=clean, scheme=scheme, host=host, port=port, address=address)


def _parse_host(raw: str) -> tuple[str, IPAddress | None]:
    if not raw:
        raise TargetRefused("the target URL has no host")
    if ":" in raw:  # an IPv6 literal (httpx has checked and unbracketed it)
        if "%" in raw:
            raise TargetRefused("an IPv6 address with a zone index is not a webhook target")
        try:
            return raw, ipaddress.IPv6Address(raw)
        except ValueError:
            raise TargetRefused("the target's IPv6 address is not valid") from None
    host = raw[:-1] if raw.endswith(".") else raw
    if NUMERIC_HOST.match(host):
        try:
            address = numeric_ipv4(host)
        except ValueError:
            raise TargetRefused(f"the target's host {host!r} is not a valid IPv4 address") from None
        return str(address), address
    labels = host.split(".")
    if not all(_LABEL.match(label) for label in labels) or len(host) > 253:
        raise TargetRefused(
            "the target's host is not a valid host name (letters, digits and hyphens, "
            "no percent-encoding)"
        )
    if _NUMERIC_LABEL.match(labels[-1]):
        raise TargetRefused("the target's host ends in a number and is not a valid address")
    return host, None


def _reason(exc: Exception) -> str:
    return str(exc).split(":")[0] or type(exc).__name__
