"""The SSRF corpus: targets in every notation of an internal address reach nothing.

Each target is sent by a real `HttpxSender` whose client records every request it makes, beside
a loopback receiver that records every connection (the targets on 127.0.0.1 aim at its port):
a refused target makes no request and no connection, and its error names the rule.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

import httpx
import pytest
from packages.scribe.tests.receivers import Answers, Receiver

from lorebase_core.addresses import address_refusal
from lorebase_platform.settings import WebhookSettings
from lorebase_scribe import HttpxSender
from lorebase_store import OutgoingDelivery

pytestmark = pytest.mark.anyio

PRIVATE = "webhooks.allow_private_targets"
SCHEMES = "webhooks.allowed_schemes"
INVALID = "not a valid"

# (target with {port} for the receiver's port, what the error must say)
LITERALS: list[tuple[str, str]] = [
    ("http://127.0.0.1:{port}/", PRIVATE),
    ("http://127.0.0.2:{port}/", PRIVATE),
    ("http://2130706433:{port}/", PRIVATE),  # decimal
    ("http://0x7f000001:{port}/", PRIVATE),  # one hex number
    ("http://0x7f.1:{port}/", PRIVATE),  # short hex
    ("http://0x7f.0x0.0x0.0x1:{port}/", PRIVATE),
    ("http://017700000001:{port}/", PRIVATE),  # one octal number
    ("http://0177.0.1:{port}/", PRIVATE),  # short octal
    ("http://127.1:{port}/", PRIVATE),  # short
    ("http://127.0.1:{port}/", PRIVATE),
    ("http://0177.0.0.1:{port}/", INVALID),  # dotted octal: httpx refuses the URL
    ("http://127.000.000.001:{port}/", INVALID),
    ("http://[::1]:{port}/", PRIVATE),
    ("http://[0:0:0:0:0:0:0:1]:{port}/", PRIVATE),
    ("http://[::ffff:127.0.0.1]:{port}/", PRIVATE),  # IPv4-mapped
    ("http://[::ffff:7f00:1]:{port}/", PRIVATE),
    ("http://[::127.0.0.1]:{port}/", PRIVATE),  # IPv4-compatible
    ("http://[2002:7f00:1::]:{port}/", PRIVATE),  # 6to4 of 127.0.0.1
    ("http://[2002:a00:5::1]/", PRIVATE),  # 6to4 of 10.0.0.5
    ("http://[64:ff9b::127.0.0.1]:{port}/", PRIVATE),  # NAT64
    ("http://[64:ff9b::a9fe:a9fe]/", PRIVATE),  # NAT64 of 169.254.169.254
    ("http://[64:ff9b:1::a00:1]/", PRIVATE),  # local-use NAT64
    ("http://0.0.0.0:{port}/", PRIVATE),
    ("http://0:{port}/", PRIVATE),
    ("http://[::]:{port}/", PRIVATE),
    ("http://169.254.169.254/latest/meta-data/", PRIVATE),
    ("http://[::ffff:169.254.169.254]/", PRIVATE),
    ("http://[fe80::1]/", PRIVATE),
    ("http://[febf:ffff::1]/", PRIVATE),
    ("http://[fe80::1%25lo]:{port}/", "zone index"),
    ("http://[fc00::1]/", PRIVATE),
    ("http://[fd12:3456:789a::1]/", PRIVATE),
    ("http://[fec0::1]/", PRIVATE),
    ("http://100.64.0.1/", PRIVATE),
    ("http://100.127.255.254/", PRIVATE),
    ("http://10.0.0.5/", PRIVATE),
    ("http://172.16.0.1/", PRIVATE),
    ("http://172.31.255.255/", PRIVATE),
    ("http://192.168.1.1/", PRIVATE),
    ("http://192.0.0.8/", PRIVATE),
    ("http://192.0.2.1/", PRIVATE),
    ("http://198.51.100.7/", PRIVATE),
    ("http://203.0.113.7/", PRIVATE),
    ("http://198.18.0.1/", PRIVATE),
    ("http://224.0.0.1/", PRIVATE),
    ("http://[ff02::1]/", PRIVATE),
    ("http://240.0.0.1/", PRIVATE),
    ("http://255.255.255.255/", PRIVATE),
    ("http://[2001:db8::1]/", PRIVATE),
    ("http://[2001::1]/", PRIVATE),  # Teredo
    ("http://[100::1]/", PRIVATE),  # discard-only
    ("http://localhost:{port}/", PRIVATE),
    ("http://LOCALHOST.:{port}/", PRIVATE),
    ("http://api.localhost:{port}/", PRIVATE),
    ("https://example.com@127.0.0.1:{port}/", PRIVATE),  # user info is not the host
    ("http://user:pass@127.0.0.1:{port}/", PRIVATE),
    ("http://127.0.0.1:{port}#@example.com/", PRIVATE),  # the fragment is not the host
    ("http://127.0.0.1:{port}/?next=https://example.com/", PRIVATE),
    ("http://%31%32%37.0.0.1:{port}/", INVALID),  # percent-encoded host
    ("http://127.0.0.1%2f@unknown.example:{port}/", "lookup"),  # the host is the name
    ("http://10.0x0.0.05/", PRIVATE),  # mixed notations
    ("http://127.0.0.1:80/", PRIVATE),
    ("http://127.0.0.1:443/", PRIVATE),
    ("https://127.0.0.1:{port}/", PRIVATE),
    ("http://127.0.0.1:99999/", "out of range"),
    ("ftp://127.0.0.1:{port}/", SCHEMES),
    ("gopher://127.0.0.1:{port}/_GET", SCHEMES),
    ("file:///etc/passwd", SCHEMES),
    ("dict://127.0.0.1:{port}/", SCHEMES),
]

# Names and what the resolver answers for them.
NAMES: dict[str, list[str]] = {
    "internal.example": ["10.0.0.5"],
    "metadata.example": ["169.254.169.254"],
    "loop.example": ["127.0.0.1"],
    "loop6.example": ["::1"],
    "ula.example": ["fd00::1"],
    "mapped.example": ["::ffff:10.1.2.3"],
    "cgnat.example": ["100.64.0.1"],
    "zero.example": ["0.0.0.0"],
    "mixed.example": ["93.184.216.34", "10.0.0.5"],  # one public, one private: refused
    "mixed6.example": ["2606:4700::1", "::ffff:127.0.0.1"],
    "linklocal6.example": ["fe80::1%2"],
    "127.0.0.1.nip.io": ["127.0.0.1"],  # a wildcard DNS service spelling the address
}


class Recording(httpx.AsyncHTTPTransport):
    """The real transport, recording the URL of every request it is asked to make."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.urls.append(str(request.url))
        return await super().handle_async_request(request)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as running:
        yield running


def _delivery(url: str) -> OutgoingDelivery:
    return OutgoingDelivery(
        id="dlv_1", webhook_id="whk_1", url=url, headers={"Idempotency-Key": "evt_1"}, body=b"{}"
    )


def _settings(**changes: object) -> WebhookSettings:
    values: dict[str, object] = {
        "allowed_schemes": ["http", "https"],
        "timeout_s": 2.0,
        "connect_timeout_s": 1.0,
    }
    return WebhookSettings.model_validate({**values, **changes})


@pytest.mark.parametrize(("template", "says"), LITERALS)
async def test_an_internal_literal_reaches_nothing(
    receiver: Receiver, template: str, says: str
) -> None:
    transport = Recording()
    resolver = Answers({})
    async with httpx.AsyncClient(transport=transport, trust_env=False) as client:
        sender = HttpxSender(_settings(), client=client, resolver=resolver)
        result = await sender.send(_delivery(template.format(port=receiver.port)))
    assert result.status is None
    assert says in (result.error or ""), result.error
    assert transport.urls == []
    assert receiver.connections == 0
    if says == PRIVATE and "localhost" not in template.lower():
        assert resolver.calls == []  # an address in any notation is never looked up


@pytest.mark.parametrize("name", sorted(NAMES))
async def test_a_name_resolving_to_an_internal_address_reaches_nothing(
    receiver: Receiver, name: str
) -> None:
    transport = Recording()
    resolver = Answers({name: [NAMES[name]]})
    async with httpx.AsyncClient(transport=transport, trust_env=False) as client:
        sender = HttpxSender(_settings(), client=client, resolver=resolver)
        result = await sender.send(_delivery(f"http://{name}:{receiver.port}/"))
    assert result.status is None
    assert PRIVATE in (result.error or ""), result.error
    assert transport.urls == []
    assert receiver.connections == 0
    assert resolver.calls == [name]


async def test_the_error_names_the_address_and_what_it_is() -> None:
    resolver = Answers({"internal.example": [["10.0.0.5"]]})
    sender = HttpxSender(_settings(), resolver=resolver)
    async with sender:
        result = await sender.send(_delivery("https://internal.example/hook?token=s3cr3t"))
    assert result.error == (
        "target resolves to 10.0.0.5, a private address (webhooks.allow_private_targets)"
    )


async def test_a_disallowed_scheme_names_the_setting(receiver: Receiver) -> None:
    async with HttpxSender(_settings(allowed_schemes=["https"])) as sender:
        result = await sender.send(_delivery(f"{receiver.url}/"))
    assert result.error == "scheme 'http' is not allowed (webhooks.allowed_schemes: https)"
    assert receiver.connections == 0


@pytest.mark.parametrize(
    "address",
    [
        "93.184.216.34",
        "8.8.8.8",
        "1.1.1.1",
        "2606:4700::1111",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
    ],
)
def test_public_addresses_are_allowed(address: str) -> None:
    assert address_refusal(ipaddress.ip_address(address)) is None


def test_every_number_in_a_dotted_host_is_read_as_the_resolver_reads_it() -> None:
    from lorebase_scribe.addresses import parse_target

    assert str(parse_target("http://1.2.3.0x7f/", ["http"]).address) == "1.2.3.127"
    assert str(parse_target("http://3232235777/", ["http"]).address) == "192.168.1.1"
    assert str(parse_target("http://0xc0.0250.257/", ["http"]).address) == "192.168.1.1"
