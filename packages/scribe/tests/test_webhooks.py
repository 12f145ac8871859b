"""HttpxSender against real receivers on loopback: answers, faults, timeouts, TLS, DNS answers."""

from __future__ import annotations

import asyncio
import datetime as dt
import ssl
import time
from collections.abc import Iterator
from email.utils import format_datetime
from pathlib import Path

import pytest
from packages.scribe.tests.receivers import (
    DROP,
    HALF,
    HANG,
    Answer,
    Answers,
    Receiver,
    closed_port,
    self_signed,
    server_tls,
    unanswered_port,
)

from lorebase_platform.settings import WebhookSettings
from lorebase_scribe import HttpxSender, parse_retry_after
from lorebase_store import OutgoingDelivery, SendResult

pytestmark = pytest.mark.anyio

TIMEOUT_S = 0.5
SLACK_S = 5.0
"""Room for a loaded machine past the timeout: still far below what ignoring it would take (a
receiver that never answers, a host lookup of 30 s)."""
BODY = b'{"sequence":7,"type":"revision.committed"}'


def _settings(**changes: object) -> WebhookSettings:
    values: dict[str, object] = {
        "allowed_schemes": ["http", "https"],
        "allow_private_targets": True,
        "timeout_s": TIMEOUT_S,
        "connect_timeout_s": 0.3,
    }
    return WebhookSettings.model_validate({**values, **changes})


def _delivery(url: str) -> OutgoingDelivery:
    headers = {
        "Content-Type": "application/json",
        "Lorebase-Event": "revision.committed",
        "Lorebase-Delivery": "dlv_1",
        "Idempotency-Key": "evt_7",
    }
    return OutgoingDelivery(id="dlv_1", webhook_id="whk_1", url=url, headers=headers, body=BODY)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as running:
        yield running


async def test_a_delivery_arrives_with_its_headers_and_body(receiver: Receiver) -> None:
    async with HttpxSender(_settings()) as sender:
        result = await sender.send(_delivery(f"{receiver.url}/hooks?x=1"))
    assert result.acknowledged
    assert result.error is None
    (received,) = receiver.requests
    assert (received.method, received.target, received.body) == ("POST", "/hooks?x=1", BODY)
    assert received.headers["idempotency-key"] == "evt_7"
    assert received.headers["host"] == f"127.0.0.1:{receiver.port}"


async def test_a_name_is_resolved_once_and_kept_in_the_host_header(receiver: Receiver) -> None:
    resolver = Answers({"hooks.test": [["127.0.0.1"]]})
    async with HttpxSender(_settings(), resolver=resolver) as sender:
        result = await sender.send(_delivery(f"http://hooks.test:{receiver.port}/"))
    assert result.status == 200
    assert resolver.calls == ["hooks.test"]
    assert receiver.requests[0].headers["host"] == f"hooks.test:{receiver.port}"


async def test_an_answer_that_changes_after_the_check_is_never_looked_up_again() -> None:
    with Receiver() as checked, Receiver(host="127.0.0.2") as other:
        # the second answer would point at the other receiver (same port number not needed:
        # the sender must not look the name up again at all)
        resolver = Answers({"rebind.test": [["127.0.0.1"], ["127.0.0.2"]]})
        async with HttpxSender(_settings(), resolver=resolver) as sender:
            result = await sender.send(_delivery(f"http://rebind.test:{checked.port}/"))
        assert result.status == 200
        assert resolver.calls == ["rebind.test"]
        assert checked.connections == 1
        assert other.connections == 0


async def test_the_checked_addresses_are_tried_in_order(receiver: Receiver) -> None:
    resolver = Answers({"two.test": [["127.0.0.3", "127.0.0.1"]]})  # nothing on 127.0.0.3
    async with HttpxSender(_settings(), resolver=resolver) as sender:
        result = await sender.send(_delivery(f"http://two.test:{receiver.port}/"))
    assert result.status == 200
    assert len(receiver.requests) == 1


async def test_a_redirect_to_an_internal_address_is_not_followed() -> None:
    with Receiver() as internal:
        location = {"Location": f"{internal.url}/admin"}
        with Receiver(lambda _: Answer(302, location)) as allowed:
            async with HttpxSender(_settings()) as sender:
                result = await sender.send(_delivery(f"{allowed.url}/"))
        assert result.status == 302
        assert not result.acknowledged
        assert result.error == f"127.0.0.1:{allowed.port} answered 302, a redirect (never followed)"
        assert internal.connections == 0


async def test_an_error_answer_keeps_its_status_and_retry_after() -> None:
    with Receiver(lambda _: Answer(503, {"Retry-After": "7"})) as busy:
        async with HttpxSender(_settings()) as sender:
            result = await sender.send(_delivery(f"{busy.url}/"))
    assert (result.status, result.retry_after_s) == (503, 7.0)
    assert result.error == f"127.0.0.1:{busy.port} answered 503"


def test_retry_after_as_seconds_or_an_http_date() -> None:
    now = time.time()
    in_a_minute = format_datetime(dt.datetime.fromtimestamp(now + 60, tz=dt.UTC), usegmt=True)
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after(in_a_minute, now=now) == pytest.approx(60, abs=1)
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after("-5") is None
    assert parse_retry_after(None) is None


async def test_the_response_body_is_never_read() -> None:
    # the receiver promises 100 MB and never sends a byte of it
    with Receiver(lambda _: Answer(200, content_length=100_000_000)) as promising:
        async with HttpxSender(_settings()) as sender:
            started = time.monotonic()
            result = await sender.send(_delivery(f"{promising.url}/"))
    assert result.acknowledged
    assert time.monotonic() - started < TIMEOUT_S


async def test_no_proxy_from_the_environment(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Receiver() as proxy:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
            monkeypatch.setenv(name, proxy.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        async with HttpxSender(_settings()) as sender:
            result = await sender.send(_delivery(f"{receiver.url}/"))
        assert result.acknowledged
        assert proxy.connections == 0


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        pytest.param(HANG, "no answer from 127.0.0.1:{port} within 0.5 s", id="never-answers"),
        pytest.param(DROP, "127.0.0.1:{port} closed the connection before answering", id="drop"),
        pytest.param(HALF, "127.0.0.1:{port} closed the connection before answering", id="half"),
    ],
)
async def test_a_receiver_fault_only_fails_the_attempt(fault: str, says: str) -> None:
    with Receiver(lambda _: fault) as faulty:  # type: ignore[arg-type, return-value]
        async with HttpxSender(_settings()) as sender:
            started = time.monotonic()
            result = await sender.send(_delivery(f"{faulty.url}/"))
            elapsed = time.monotonic() - started
    assert result.status is None
    assert result.error is not None
    assert result.error.startswith(says.format(port=faulty.port)), result.error
    assert elapsed < TIMEOUT_S + SLACK_S
    assert len(faulty.requests) == 1


async def test_a_refused_connection_names_the_address() -> None:
    port = closed_port()
    async with HttpxSender(_settings()) as sender:
        result = await sender.send(_delivery(f"http://127.0.0.1:{port}/"))
    assert result.status is None
    assert result.error == f"connection refused by 127.0.0.1:{port}"


async def test_an_address_that_never_accepts_is_given_up_for_the_next() -> None:
    with unanswered_port() as port, Receiver(host="127.0.0.2", port=port) as second:
        resolver = Answers({"two.test": [["127.0.0.1", "127.0.0.2"]]})
        async with HttpxSender(_settings(), resolver=resolver) as sender:
            started = time.monotonic()
            result = await sender.send(_delivery(f"http://two.test:{port}/"))
            elapsed = time.monotonic() - started
    assert result.status == 200, result.error
    assert 0.3 <= elapsed < TIMEOUT_S
    assert len(second.requests) == 1


async def test_a_connection_never_accepted_fails_within_connect_timeout_s() -> None:
    with unanswered_port() as port:
        async with HttpxSender(_settings()) as sender:
            result = await sender.send(_delivery(f"http://127.0.0.1:{port}/"))
    assert result.error == (
        f"no connection to 127.0.0.1:{port} within 0.3 s (webhooks.connect_timeout_s)"
    )


async def test_a_scoped_answer_allowed_by_the_settings_still_only_fails_the_attempt() -> None:
    resolver = Answers({"scoped.test": [["fe80::1%1"]]})
    async with HttpxSender(_settings(), resolver=resolver) as sender:
        result = await sender.send(_delivery("http://scoped.test/"))
    assert result.status is None
    assert (result.error or "").startswith("no connection to [fe80::1%1]:80")


async def test_a_slow_host_lookup_counts_in_the_attempt(receiver: Receiver) -> None:
    resolver = Answers({"slow.test": [["127.0.0.1"]]}, delay_s=30)
    async with HttpxSender(_settings(), resolver=resolver) as sender:
        started = time.monotonic()
        result = await sender.send(_delivery(f"http://slow.test:{receiver.port}/"))
    assert time.monotonic() - started < TIMEOUT_S + SLACK_S
    assert (
        result.error == "the host lookup of 'slow.test' took longer than 0.5 s (webhooks.timeout_s)"
    )
    assert receiver.connections == 0


async def test_a_failed_lookup_only_fails_the_attempt() -> None:
    async with HttpxSender(_settings(), resolver=Answers({})) as sender:
        result = await sender.send(_delivery("https://gone.test/"))
    assert result.error == "the host lookup of 'gone.test' failed (Name or service not known)"


async def test_attempts_run_side_by_side_within_the_timeout() -> None:
    with Receiver(lambda _: HANG) as silent:
        async with HttpxSender(_settings(concurrency=4)) as sender:
            started = time.monotonic()
            results = await asyncio.gather(
                *(sender.send(_delivery(f"{silent.url}/")) for _ in range(4))
            )
    assert all(result.status is None for result in results)
    assert time.monotonic() - started < 3 * TIMEOUT_S  # one at a time: 4 * TIMEOUT_S


async def _send_over_tls(
    tmp_path: Path, certified_name: str, *, trusted: bool = True
) -> tuple[SendResult, Receiver]:
    """Send to https://hooks.test (resolving to 127.0.0.1) served with a certificate for
    `certified_name`, by a sender that trusts that certificate (or only the system's)."""
    cert_file, key_file = self_signed(tmp_path, certified_name)
    verify = ssl.create_default_context(cafile=str(cert_file)) if trusted else True
    resolver = Answers({"hooks.test": [["127.0.0.1"]]})
    with Receiver(tls=server_tls(cert_file, key_file)) as secure:
        async with HttpxSender(_settings(), resolver=resolver, verify=verify) as sender:
            return await sender.send(_delivery(f"https://hooks.test:{secure.port}/")), secure


async def test_https_connects_by_address_with_the_name_as_tls_server_name(tmp_path: Path) -> None:
    result, secure = await _send_over_tls(tmp_path, "hooks.test")
    assert result.status == 200, result.error
    assert secure.server_names == ["hooks.test"]
    assert secure.requests[0].headers["host"] == f"hooks.test:{secure.port}"


async def test_the_certificate_is_checked_against_the_name(tmp_path: Path) -> None:
    result, impostor = await _send_over_tls(tmp_path, "other.test")
    assert result.status is None
    assert result.error is not None
    assert result.error.startswith(f"TLS with 127.0.0.1:{impostor.port} failed"), result.error
    assert "Hostname mismatch" in result.error
    assert impostor.requests == []


async def test_a_connection_verified_for_one_name_is_not_reused_for_another(
    tmp_path: Path,
) -> None:
    cert_file, key_file = self_signed(tmp_path, "hooks.test")
    resolver = Answers({"hooks.test": [["127.0.0.1"]], "other.test": [["127.0.0.1"]]})
    trusting = ssl.create_default_context(cafile=str(cert_file))
    with Receiver(tls=server_tls(cert_file, key_file)) as secure:
        async with HttpxSender(_settings(), resolver=resolver, verify=trusting) as sender:
            first = await sender.send(_delivery(f"https://hooks.test:{secure.port}/"))
            second = await sender.send(_delivery(f"https://other.test:{secure.port}/"))
    assert first.status == 200, first.error
    assert second.status is None
    assert "Hostname mismatch" in (second.error or "")
    assert len(secure.requests) == 1


async def test_an_untrusted_certificate_fails_the_attempt(tmp_path: Path) -> None:
    result, secure = await _send_over_tls(tmp_path, "hooks.test", trusted=False)
    assert result.status is None
    assert "TLS with" in (result.error or "")
    assert secure.requests == []


async def test_an_answer_without_a_body_keeps_the_connection_for_the_next(
    receiver: Receiver,
) -> None:
    async with HttpxSender(_settings()) as sender:
        results = [await sender.send(_delivery(f"{receiver.url}/")) for _ in range(3)]
    assert all(result.acknowledged for result in results)
    assert (receiver.connections, len(receiver.requests)) == (1, 3)
