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

__all__ = ["Target", "TargetRefused", "address_refusal", "parse_target"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network

# The IPv4 ranges that are not public unicast (IANA special-purpose registry), with what they are.
_IPV4_REFUSED: tuple[tuple[ipaddress.IPv4Network, str], ...] = (
    (_V4("0.0.0.0/8"), "an unspecified address"),
    (_V4("10.0.0.0/8"), "a private address"),
    (_V4("100.64.0.0/10"), "a shared (carrier-grade NAT) address"),
    (_V4("127.0.0.0/8"), "a loopback address"),
    (_V4("169.254.0.0/16"), "a link-local address"),
    (_V4("172.16.0.0/12"), "a private address"),
    (_V4("192.0.0.0/24"), "a reserved address"),
    (_V4("192.0.2.0/24"), "a documentation address"),
    (_V4("192.88.99.0/24"), "a reserved address"),
    (_V4("192.168.0.0/16"), "a private address"),
    (_V4("198.18.0.0/15"), "a reserved address"),
    (_V4("198.51.100.0/24"), "a documentation address"),
    (_V4("203.0.113.0/24"), "a documentation address"),
    (_V4("224.0.0.0/4"), "a multicast address"),
    (_V4("240.0.0.0/4"), "a reserved address"),
)

# IPv6: only global unicast (2000::/3) is public, less the special ranges inside it; the forms
# that embed an IPv4 address are judged by it.
_IPV6_GLOBAL = _V6("2000::/3")
_IPV6_REFUSED: tuple[tuple[ipaddress.IPv6Network, str], ...] = (
    (_V6("2001::/23"), "a reserved address"),  # Teredo, benchmarking, ORCHID, ...
    (_V6("2001:db8::/32"), "a documentation address"),
    (_V6("3fff::/20"), "a documentation address"),
)
_IPV6_NAMED: tuple[tuple[ipaddress.IPv6Network, str], ...] = (
    (_V6("::/128"), "an unspecified address"),
    (_V6("::1/128"), "a loopback address"),
    (_V6("64:ff9b:1::/48"), "a private address"),
    (_V6("fc00::/7"), "a private address"),
    (_V6("fe80::/10"), "a link-local address"),
    (_V6("fec0::/10"), "a private address"),
    (_V6("ff00::/8"), "a multicast address"),
)
_NAT64 = _V6("64:ff9b::/96")

_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}$")
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
    if _NUMERIC_HOST.match(host):
        address = _inet_aton(host)
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


def _inet_aton(host: str) -> ipaddress.IPv4Address:
    """Read an IPv4 address in any notation the C resolver accepts (decimal, octal, hex, short)."""
    try:
        parts = [_number(part) for part in host.split(".")]
    except ValueError:
        raise TargetRefused(f"the target's host {host!r} is not a valid IPv4 address") from None
    *leading, last = parts
    room = 256 ** (4 - len(leading))
    if any(part > 255 for part in leading) or last >= room:
        raise TargetRefused(f"the target's host {host!r} is not a valid IPv4 address")
    value = 0
    for part in leading:
        value = value * 256 + part
    return ipaddress.IPv4Address(value * room + last)


def _number(part: str) -> int:
    if part.startswith("0x"):
        return int(part[2:] or "0", 16)
    if len(part) > 1 and part.startswith("0"):
        return int(part, 8)
    return int(part, 10)


def address_refusal(address: IPAddress) -> str | None:
    """What makes `address` no public unicast address ("a loopback address"), or None if it is."""
    if isinstance(address, ipaddress.IPv4Address):
        return _ipv4_refusal(address)
    if address.scope_id:
        return "a link-local address"
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        what = _ipv4_refusal(embedded)
        return None if what is None else f"{what} in IPv6 form ({embedded})"

    for network, what in _IPV6_NAMED:
        if address in network:
            return what
    if address not in _IPV6_GLOBAL:
        return "a reserved address"
    for network, what in _IPV6_REFUSED:
        if address in network:
            return what
    return None


def _ipv4_refusal(address: ipaddress.IPv4Address) -> str | None:
    for network, what in _IPV4_REFUSED:
        if address in network:
            return what
    return None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form carries: mapped, IPv4-compatible, NAT64 or 6to4."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    packed = int(address)
    if address in _NAT64 or (packed >> 32 == 0 and packed > 1):
        return ipaddress.IPv4Address(packed & 0xFFFFFFFF)
    return None


def _reason(exc: Exception) -> str:
    return str(exc).split(":")[0] or type(exc).__name__
