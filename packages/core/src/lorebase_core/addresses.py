"""Which network addresses are public unicast, in every notation a resolver reads.

Webhook targets must not reach internal services: the store refuses a literal internal address
when a webhook is registered, and Scribe's sender checks every address a target resolves to
before it connects. Both use these rules, so registration and delivery agree. Hosts are read the
way a system resolver reads them: every notation of an IPv4 address (`2130706433`, `0x7f.1`,
`127.1`, `0177.0.0.1`) is the address it spells, and IPv6 forms that carry an IPv4 address
(mapped, IPv4-compatible, NAT64, 6to4) are judged by that address.
"""

from __future__ import annotations

import ipaddress
import re

__all__ = ["IPAddress", "address_refusal", "literal_address", "numeric_ipv4"]

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

NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}$")
"""A host made of numbers only (lower case): an IPv4 address in some notation, never a name."""


def literal_address(host: str) -> IPAddress | None:
    """The address a host names literally (`[::1]`, `127.1`, `2130706433`), None for a name.

    A numeric host that spells no valid address is None too: it cannot be connected to.
    """
    text = host.strip("[]").lower()
    if ":" in text:
        try:
            return ipaddress.IPv6Address(text.split("%", 1)[0])
        except ValueError:
            return None
    text = text[:-1] if text.endswith(".") else text
    if not NUMERIC_HOST.match(text):
        return None
    try:
        return numeric_ipv4(text)
    except ValueError:
        return None


def numeric_ipv4(host: str) -> ipaddress.IPv4Address:
    """An IPv4 address in any notation the C resolver accepts (decimal, octal, hex, short).

    Raises ValueError when `host` spells none.
    """
    parts = [_number(part) for part in host.split(".")]  # ValueError: not numbers
    *leading, last = parts
    room = 256 ** (4 - len(leading))
    if any(part > 255 for part in leading) or last >= room:
        raise ValueError(f"{host!r} is not a valid IPv4 address")
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
