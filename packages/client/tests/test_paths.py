"""Path segments: every value percent-encoded; empty, `.` and `..` refused before any request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from lorebase_client import AsyncLorebaseClient, InvalidPathSegment, LorebaseClient
from lorebase_client.paths import record_path, segment
from lorebase_core.errors import BadRequest


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        pytest.param("S-1001", "S-1001", id="plain"),
        pytest.param("two words", "two%20words", id="space"),
        pytest.param("Poznan/Plant 1", "Poznan%2FPlant%201", id="slash"),
        pytest.param("100% sure", "100%25%20sure", id="percent"),
        pytest.param("what?#fragment", "what%3F%23fragment", id="query-and-fragment"),
        pytest.param("a+b&c=d", "a%2Bb%26c%3Dd", id="plus-and-amp"),
        pytest.param("Zürich", "Z%C3%BCrich", id="unicode"),
        pytest.param("...", "...", id="three-dots"),
        pytest.param("a.b", "a.b", id="dot-inside"),
    ],
)
def test_a_segment_is_percent_encoded_whole(value: str, encoded: str) -> None:
    assert segment(value, "key") == encoded


@pytest.mark.parametrize("value", ["", ".", ".."], ids=["empty", "dot", "dot-dot"])
def test_empty_and_dot_segments_are_refused(value: str) -> None:
    with pytest.raises(InvalidPathSegment) as caught:
        segment(value, "key")
    error = caught.value
    assert isinstance(error, ValueError)
    assert isinstance(error, BadRequest)
    assert f"key {value!r} cannot be sent as a path segment" in error.detail
    assert error.code == "invalid-path-segment"


def test_a_record_path_encodes_the_domain_kind_and_key() -> None:
    path = record_path("supply", "Supplier", "a/b c", "links", segment("supplies", "Relation"))
    assert path == "/api/v1/domains/supply/kinds/Supplier/records/a%2Fb%20c/links/supplies"


def _refusing_transport(sent: list[httpx.Request]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    return httpx.MockTransport(handler)


SYNC_CALLS: list[Any] = [
    pytest.param(lambda c: c.schema(""), id="schema-domain-empty"),
    pytest.param(lambda c: c.records("supply", "."), id="records-kind-dot"),
    pytest.param(lambda c: list(c.iter_records("supply", "..")), id="iter-records-kind-dot-dot"),
    pytest.param(lambda c: c.record("supply", "Supplier", ""), id="record-key-empty"),
    pytest.param(lambda c: c.record("supply", "Supplier", ".."), id="record-key-dot-dot"),
    pytest.param(lambda c: c.links("supply", "Supplier", "S-1001", "."), id="links-relation-dot"),
    pytest.param(lambda c: c.history("supply", "Supplier", "."), id="history-key-dot"),
    pytest.param(lambda c: c.lineage("..", "Supplier", "S-1001"), id="lineage-domain-dot-dot"),
    pytest.param(lambda c: c.explain("supply", "", "S-1001"), id="explain-kind-empty"),
    pytest.param(lambda c: c.query(".", kind="Supplier"), id="query-domain-dot"),
    pytest.param(lambda c: c.branch("supply", ".."), id="branch-dot-dot"),
    pytest.param(lambda c: c.tag("supply", ""), id="tag-empty"),
    pytest.param(lambda c: c.diff("", "a", "b"), id="diff-domain-empty"),
]


@pytest.mark.parametrize("call", SYNC_CALLS)
def test_the_sync_client_refuses_bad_segments_without_a_request(
    call: Callable[[LorebaseClient], object],
) -> None:
    sent: list[httpx.Request] = []
    transport = _refusing_transport(sent)
    with (
        LorebaseClient("http://keeper.test", transport=transport) as client,
        pytest.raises(InvalidPathSegment),
    ):
        call(client)
    assert sent == []


ASYNC_CALLS: list[Any] = [
    pytest.param(lambda c: c.record("supply", "Supplier", "."), id="record-key-dot"),
    pytest.param(lambda c: c.history("supply", "", "S-1001"), id="history-kind-empty"),
    pytest.param(lambda c: c.branch("supply", ""), id="branch-empty"),
]


@pytest.mark.anyio
@pytest.mark.parametrize("call", ASYNC_CALLS)
async def test_the_async_client_refuses_bad_segments_without_a_request(
    call: Callable[[AsyncLorebaseClient], Awaitable[object]],
) -> None:
    sent: list[httpx.Request] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    transport = httpx.MockTransport(handler)
    async with AsyncLorebaseClient("http://keeper.test", transport=transport) as client:
        with pytest.raises(InvalidPathSegment):
            await call(client)
    assert sent == []


@pytest.mark.anyio
async def test_iterating_records_refuses_a_bad_segment_before_any_request() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"no request may be sent, got {request.url}")

    transport = httpx.MockTransport(handler)
    async with AsyncLorebaseClient("http://keeper.test", transport=transport) as client:
        with pytest.raises(InvalidPathSegment):
            [record async for record in client.iter_records("supply", "")]


def test_the_encoded_path_reaches_the_wire_unchanged() -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"revision": "r"})

    transport = httpx.MockTransport(handler)
    with LorebaseClient("http://keeper.test/prefix", transport=transport) as client:
        client.record("notes", "Note", "Poznan/Plant 1?#", branch="agent/usr/t 1")
    assert sent[0].url.raw_path == (
        b"/prefix/api/v1/domains/notes/kinds/Note/records/Poznan%2FPlant%201%3F%23"
        b"?branch=agent%2Fusr%2Ft+1"
    )
