"""Fast answers (docs/api.md): a repeated read and its 304 come from memory, never stale.

A repeated read runs no statement at all while nothing has been written; a commit, in this
process or through another engine (another process: SQLite's data_version, PostgreSQL's
notices), makes the next read a real one; the answer is byte for byte the usual one; each
credential has its own; the rate limit still charges; traced reads go the usual way.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from fastapi import FastAPI

from lorebase_core.changes import UpsertRecord
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, make_keys
from lorebase_platform.settings import Settings
from lorebase_store import Store
from lorebase_store.testing import commit_changes, statements_run

SUPPLY = "/api/v1/domains/supply"
S_1001 = f"{SUPPLY}/kinds/Supplier/records/S-1001"
CONTEXT = {"search": "Acme", "depth": 1}


def fast_settings(**keeper: Any) -> Settings:
    return Settings(
        keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 60}}, **keeper}
    )


@asynccontextmanager
async def running(settings: Settings, store: Store) -> AsyncIterator[FastAPI]:
    """Keeper as a server runs it: its lifespan started (PostgreSQL's listener starts there)."""
    app = create_app(settings, store=store)
    async with app.router.lifespan_context(app):
        yield app


@asynccontextmanager
async def client_of(app: FastAPI, key: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://keeper.test",
        headers=Keys.header(key),
    ) as client:
        yield client


def rename(store: Store, name: str) -> str:
    return commit_changes(
        store, [UpsertRecord(kind="Supplier", key="S-1001", values={"city": name})]
    ).id


async def served_from_memory(http: httpx.AsyncClient, store: Store, path: str) -> httpx.Response:
    """GET `path` until the answer comes from memory (on PostgreSQL that starts once the
    listener of change notices has connected), and return that answer."""
    deadline = time.monotonic() + 60
    while True:
        with statements_run(store) as seen:
            response = await http.get(path)
        assert response.status_code == 200, response.text
        if not seen:
            return response
        assert time.monotonic() < deadline, "the fast path never served the read"
        await anyio.sleep(0.05)


def answer_of(response: httpx.Response) -> tuple[int, bytes, dict[str, str]]:
    kept = ("etag", "lorebase-revision", "cache-control", "content-type", "content-length")
    return (
        response.status_code,
        response.content,
        {name: response.headers[name] for name in kept if name in response.headers},
    )


@pytest.mark.anyio
async def test_a_repeated_read_and_its_304_run_no_statement_and_are_the_same_answer(
    supply: Store,
) -> None:
    keys = make_keys(supply)
    async with running(fast_settings(), supply) as app, client_of(app, keys.admin) as http:
        first = await served_from_memory(http, supply, S_1001)
        with statements_run(supply) as seen:
            again = await http.get(S_1001)
            not_modified = await http.get(S_1001, headers={"If-None-Match": first.headers["etag"]})
            weak = await http.get(S_1001, headers={"If-None-Match": "*"})
        assert seen == []
        assert answer_of(again) == answer_of(first)
        assert not_modified.status_code == 304
        assert weak.status_code == 304
        assert not_modified.content == b""
        for name in ("etag", "lorebase-revision", "cache-control"):
            assert not_modified.headers[name] == first.headers[name]
        assert "content-type" not in not_modified.headers
        # a POST read: the same body again is the same pack, from memory
        pack = await http.post(f"{SUPPLY}/context", json=CONTEXT)
        assert pack.status_code == 200, pack.text
        with statements_run(supply) as seen:
            repeated = await http.post(f"{SUPPLY}/context", json=CONTEXT)
            other = await http.post(f"{SUPPLY}/context", json={**CONTEXT, "depth": 0})
        assert answer_of(repeated) == answer_of(pack)
        assert other.status_code == 200
        assert other.content != pack.content
        assert seen, "a different body is a different read"


@pytest.mark.anyio
async def test_a_commit_in_this_process_or_another_is_seen_by_the_next_read(
    supply: Store, database_url: str
) -> None:
    keys = make_keys(supply)
    other = Store.open(database_url)  # its own engine: what another process would do
    try:
        async with running(fast_settings(), supply) as app, client_of(app, keys.admin) as http:

            async def settled_name() -> tuple[str, str]:
                found = (await served_from_memory(http, supply, S_1001)).json()
                return found["values"]["city"], found["revision"]

            await settled_name()
            head = rename(supply, "Renamed here")  # this process, the Keeper's own engine
            assert (await http.get(S_1001)).json()["values"]["city"] == "Renamed here"
            assert await settled_name() == ("Renamed here", head)
            head = rename(other, "Renamed elsewhere")
            deadline = time.monotonic() + 60
            while (await http.get(S_1001)).json()["values"]["city"] != "Renamed elsewhere":
                assert time.monotonic() < deadline, "a commit of another engine was never seen"
                await anyio.sleep(0.02)
            assert await settled_name() == ("Renamed elsewhere", head)
    finally:
        other.close()


@pytest.mark.anyio
async def test_each_credential_has_its_own_answer(supply: Store) -> None:
    keys = make_keys(supply)
    part = f"{SUPPLY}/kinds/Part/records/P-10028"
    async with (
        running(fast_settings(), supply) as app,
        client_of(app, keys.admin) as admin,
        client_of(app, keys.supplier) as supplier,
    ):
        for _ in range(2):
            assert (await admin.get(part)).status_code == 200
            refused = await supplier.get(part)  # narrowed to Supplier: Part is not there for it
            assert refused.status_code in (403, 404), refused.text
            assert refused.headers["content-type"] == "application/problem+json"
        async with client_of(app, "lb_not_a_key") as stranger:
            assert (await stranger.get(part)).status_code == 401


@pytest.mark.anyio
async def test_answers_from_memory_are_charged_to_the_rate_limit(supply: Store) -> None:
    keys = make_keys(supply)
    settings = fast_settings(
        rate_limits={"enabled": True, "classes": {"reads": {"per_minute": 3, "burst": 3}}}
    )
    async with running(settings, supply) as app, client_of(app, keys.viewer) as http:
        codes = [(await http.get(S_1001)).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]


@pytest.mark.anyio
async def test_traced_reads_and_disabled_fast_answers_go_the_usual_way(supply: Store) -> None:
    keys = make_keys(supply)
    traced = {"X-Lorebase-Trace": "on", "X-Lorebase-Session": "fast"}
    for settings, headers in (
        (fast_settings(trace={"enabled": True}), traced),
        (fast_settings(cache={"fast_path": False}), {}),
    ):
        async with running(settings, supply) as app, client_of(app, keys.admin) as http:
            assert (await http.get(S_1001, headers=headers)).status_code == 200
            with statements_run(supply) as seen:
                assert (await http.get(S_1001, headers=headers)).status_code == 200
            assert seen, "read from memory although it should not have been"


def listening_connections(database_url: str) -> int:
    """Connections LISTENing on this PostgreSQL database (what a Keeper's notices hold)."""
    import psycopg

    dsn = database_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as connection:
        found = connection.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND query LIKE 'LISTEN%'"
        ).fetchone()
    return int(found[0]) if found else 0


@pytest.mark.anyio
async def test_the_listener_lives_with_the_server_not_with_a_request(
    supply: Store, database_url: str
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL's change notices only")
    keys = make_keys(supply)
    # without the lifespan (a test client's loop may end with each request) nothing listens
    # and nothing is left connecting: every read is a real one
    app = create_app(fast_settings(), store=supply)
    async with client_of(app, keys.admin) as http:
        for _ in range(3):
            with statements_run(supply) as seen:
                assert (await http.get(S_1001)).status_code == 200
            assert seen
    assert listening_connections(database_url) == 0
    app.state.keeper.recorder.close()
    async with running(fast_settings(), supply) as app, client_of(app, keys.admin) as http:
        await served_from_memory(http, supply, S_1001)
        assert listening_connections(database_url) == 1
    deadline = time.monotonic() + 60  # the server's backend ends just after the client closes
    while listening_connections(database_url) != 0:
        assert time.monotonic() < deadline, "the listener outlived the server"
        await anyio.sleep(0.05)
