"""GET /branches/{branch}/events over real HTTP on loopback: frames, resuming, limits, auth."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from packages.keeper.tests.conftest import supply_with_operations
from packages.keeper.tests.routes.feed.test_changes import part_cost, risk

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem, grant_key, make_keys, serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_store import Store

EVENTS = "/api/v1/domains/supply/branches/main/events"
MEMBERS = [
    "sequence", "type", "domain", "branch", "revision", "parents", "generation", "author",
    "message", "origin", "stats", "created_at", "kinds", "relations", "schema_changed", "keys",
    "keys_truncated",
]  # fmt: skip


def feed_settings(**feed: Any) -> Settings:
    return Settings(
        keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}},
        agents={"feed": {"poll_interval_s": 0.05, **feed}},
    )


@dataclass
class Frame:
    fields: dict[str, str] = field(default_factory=dict)
    comments: list[str] = field(default_factory=list)

    @property
    def data(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.fields["data"])
        return found


class Stream:
    """The frames of one open stream, read as they arrive."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.lines = response.iter_lines()

    def frame(self) -> Frame | None:
        """The next frame, None when the server closed the stream."""
        found = Frame()
        for line in self.lines:
            if not line:
                if found.fields or found.comments:
                    return found
                continue
            if line.startswith(":"):
                found.comments.append(line[1:].strip())
                continue
            name, _, value = line.partition(":")
            found.fields[name] = value.removeprefix(" ")
        return found if found.fields or found.comments else None

    def event(self) -> Frame:
        """The next frame holding an event (keep-alive comments skipped)."""
        while True:
            found = self.frame()
            assert found is not None, "the stream ended before an event came"
            if "id" in found.fields:
                return found


@contextmanager
def served(store: Store, settings: Settings) -> Iterator[httpx.Client]:
    with (
        serve_in_thread(create_app(settings, store=store)) as url,
        httpx.Client(base_url=url, timeout=30) as client,  # roomy: CI machines are loaded
    ):
        yield client


@contextmanager
def opened(client: httpx.Client, key: str, **params: Any) -> Iterator[Stream]:
    headers = Keys.header(key) | params.pop("headers", {})
    with client.stream("GET", EVENTS, params=params, headers=headers) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = Stream(response)
        first = stream.frame()
        assert first is not None
        assert "retry" in first.fields
        yield stream


def test_a_commit_reaches_an_open_stream_with_every_member(supply: Store, keys: Keys) -> None:
    with (
        served(supply, feed_settings()) as client,
        client.stream("GET", EVENTS, headers=Keys.header(keys.viewer)) as response,
    ):
        stream = Stream(response)
        first = stream.frame()
        assert first is not None
        assert first.fields == {"retry": "3000"}
        made = risk(supply, 61)  # after the stream opened: it starts at the next commit
        frame = stream.event()
        assert frame.fields["event"] == "revision"
        assert list(frame.data) == MEMBERS
        assert frame.data == supply.events("supply")[-1]
        assert frame.fields["id"] == str(frame.data["sequence"])
        assert frame.data["revision"] == made
        assert frame.fields["data"] == json.dumps(frame.data, separators=(",", ":"))


def test_kinds_keep_only_revisions_changing_them(supply: Store, keys: Keys) -> None:
    with served(supply, feed_settings()) as client, opened(client, keys.viewer, kinds="Part") as s:
        risk(supply, 62)
        part = part_cost(supply, "1.75")
        assert s.event().data["revision"] == part


@pytest.mark.parametrize("form", ["header", "query"])
def test_resuming_after_last_event_id_has_no_gaps_and_no_repeats(
    supply: Store, keys: Keys, form: str
) -> None:
    start = supply.events("supply")[-1]["sequence"]
    with served(supply, feed_settings()) as client:
        seen: list[int] = []
        with opened(client, keys.viewer) as stream:
            for value in range(3):
                risk(supply, value)
            seen += [int(stream.event().fields["id"]) for _ in range(2)]
        # the third came (or not) while nobody listened; two more after
        risk(supply, 70)
        risk(supply, 71)
        last = str(seen[-1])
        params = (
            {"headers": {"Last-Event-ID": last}} if form == "header" else {"last_event_id": last}
        )
        with opened(client, keys.viewer, **params) as stream:
            seen += [int(stream.event().fields["id"]) for _ in range(3)]
    expected = [event["sequence"] for event in supply.events("supply", after=start)]
    assert seen == expected


def test_keep_alive_after_heartbeat_and_closed_after_max_connection(
    supply: Store, keys: Keys
) -> None:
    settings = feed_settings(heartbeat_s=0.2, max_connection_s=1.5)
    with served(supply, settings) as client, opened(client, keys.viewer) as stream:
        began = time.monotonic()
        frame = stream.frame()
        assert frame is not None
        assert frame.comments == ["keep-alive"]
        while stream.frame() is not None:
            pass
        assert 1.0 < time.monotonic() - began < 5.0


def test_a_revoked_key_ends_the_stream_and_the_reconnection_is_401(
    supply: Store, keys: Keys
) -> None:
    supply.ensure_principal("usr_watcher")
    key = supply.create_key("usr_watcher")
    supply.add_grant("usr_watcher", domain="supply", role="viewer")
    settings = feed_settings(reauthorize_interval_s=0.3, heartbeat_s=0.1)
    with served(supply, settings) as client:
        with opened(client, key.secret) as stream:
            supply.revoke_key(key.info.id)
            began = time.monotonic()
            while stream.frame() is not None:
                assert time.monotonic() - began < 5.0
            assert time.monotonic() - began < 3.0
        assert_problem(client.get(EVENTS, headers=Keys.header(key.secret)), 401, "unauthorized")


def test_a_withdrawn_grant_ends_the_stream_and_the_reconnection_is_403(
    supply: Store, keys: Keys
) -> None:
    key = grant_key(supply, "usr_watcher", domain="supply", role="viewer", branch="dev")
    grant = supply.add_grant("usr_watcher", domain="supply", role="viewer", branch="main")
    settings = feed_settings(reauthorize_interval_s=0.3, heartbeat_s=0.1)
    with served(supply, settings) as client:
        with opened(client, key) as stream:
            supply.revoke_grant(grant.id)
            began = time.monotonic()
            while stream.frame() is not None:
                assert time.monotonic() - began < 5.0
        assert_problem(client.get(EVENTS, headers=Keys.header(key)), 403, "forbidden")


def test_narrowed_grants_bad_input_and_too_many_streams(supply: Store, keys: Keys) -> None:
    settings = feed_settings(max_streams_per_principal=1, max_streams_per_process=2)
    with served(supply, settings) as client:
        narrowed = client.get(EVENTS, headers=Keys.header(keys.supplier))
        assert_problem(narrowed, 403, "history-forbidden")
        bad = client.get(EVENTS, params={"last_event_id": "x1"}, headers=Keys.header(keys.viewer))
        assert_problem(bad, 422, "invalid-input")
        unknown = client.get(EVENTS, params={"kinds": "Suplier"}, headers=Keys.header(keys.viewer))
        assert_problem(unknown, 422, "invalid-input")
        with opened(client, keys.viewer):
            again = client.get(EVENTS, headers=Keys.header(keys.viewer))
            assert_problem(again, 429, "too-many-streams")
            assert again.headers["Retry-After"] == "3"
            with opened(client, keys.admin):
                third = client.get(EVENTS, headers=Keys.header(keys.agent))
                assert_problem(third, 429, "too-many-streams")
                assert int(third.headers["Retry-After"]) >= 1
        # closed streams give their slots back, once Keeper has seen the client go
        assert wait_for_a_slot(client, keys.viewer)


def test_a_commit_through_another_keeper_reaches_the_stream(
    supply: Store, keys: Keys, database_url: str
) -> None:
    """Two Keepers on one database: on PostgreSQL the NOTIFY wakes the stream (the poll is set
    to 30 s), on SQLite the poll of the event table does."""
    interval = 30.0 if supply.backend == "postgresql" else 0.05
    other = Store.open(database_url)
    try:
        with (
            served(supply, feed_settings(poll_interval_s=interval)) as client,
            opened(client, keys.viewer) as stream,
        ):
            if supply.backend == "postgresql":  # a NOTIFY before LISTEN is not heard
                wait_until_listening(database_url)
            began = time.monotonic()
            made = risk(other, 63)
            assert stream.event().data["revision"] == made
            assert time.monotonic() - began < 15.0, "woken by the 30 s poll, not by the NOTIFY"
    finally:
        other.close()


CONTACT = """  note_supplier_contact:
    description: Set the contact e-mail of a supplier.
    parameters:
      key: {type: string, required: true}
      contact_email: {type: string, required: true, sensitivity: [pii]}
    edits:
      - update_record:
          kind: Supplier
          key: $key
          values: {contact_email: $contact_email}
    permissions: [operation.execute]
    side_effects: [contact_changed]
"""


def test_operation_events_arrive_with_edits_masked_for_the_reader(
    store: Store, tmp_path: Path
) -> None:
    supply_with_operations(store, tmp_path, CONTACT)
    keys = make_keys(store)
    store.create_branch("supply", "dev", created_by="usr_admin")
    dev = EVENTS.replace("/main/", "/dev/")
    with served(store, feed_settings()) as client:
        headers = Keys.header(keys.viewer)
        with client.stream("GET", dev, headers=headers) as response:
            stream = Stream(response)
            assert stream.frame() is not None  # retry:
            executed = client.post(
                "/api/v1/domains/supply/operations/note_supplier_contact/execute",
                json={
                    "parameters": {"key": "S-1001", "contact_email": "lena@example.com"},
                    "branch": "dev",
                },
                headers=Keys.header(keys.admin),
            )
            assert executed.status_code == 200, executed.text
            revision, operation = stream.event(), stream.event()
    assert revision.fields["event"] == "revision"
    assert operation.fields["event"] == "operation"
    event = operation.data
    assert event["type"] == "operation.contact_changed"
    assert event["revisions"] == [revision.data["revision"]]
    assert event["edits"] == [
        {
            "op": "update_record",
            "kind": "Supplier",
            "key": "S-1001",
            "values": {"contact_email": "***"},
        }
    ]
    assert "lena@example.com" not in operation.fields["data"]


def test_a_client_gone_before_reading_gives_its_slot_back(supply: Store, keys: Keys) -> None:
    # requests sent on raw sockets closed at once, before any frame is read: each slot returns
    settings = feed_settings(max_streams_per_principal=1)
    with served(supply, settings) as client:
        address = httpx.URL(str(client.base_url))
        request = (
            f"GET {EVENTS} HTTP/1.1\r\nHost: {address.host}\r\n"
            f"Authorization: Bearer {keys.viewer}\r\n\r\n"
        ).encode()
        for _ in range(5):
            with socket.create_connection((address.host, address.port)) as raw:
                raw.sendall(request)
        assert wait_for_a_slot(client, keys.viewer)  # the viewer's own slot is free again


def wait_until_listening(database_url: str, within_s: float = 60.0) -> None:
    """Wait until a connection to the database LISTENs (Keeper's notices, on PostgreSQL)."""
    deadline = time.monotonic() + within_s
    with psycopg.connect(database_url, autocommit=True) as connection:
        while not connection.execute(LISTENING).fetchone():
            assert time.monotonic() < deadline, f"nothing LISTENs within {within_s} s"
            time.sleep(0.05)


LISTENING = """SELECT 1 FROM pg_stat_activity
WHERE datname = current_database() AND query ILIKE 'LISTEN %' AND pid <> pg_backend_pid()"""


def wait_for_a_slot(client: httpx.Client, key: str, within_s: float = 5.0) -> bool:
    """Whether a stream opens for `key` within `within_s` (a slot is given back when Keeper
    sees the client gone, a moment after the client closed)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        with client.stream("GET", EVENTS, headers=Keys.header(key)) as response:
            if response.status_code == 200:
                return True
            response.read()
            assert_problem(response, 429, "too-many-streams")
        time.sleep(0.05)
    return False
