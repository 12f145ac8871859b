"""`HeadWatch`: its token changes with every announced write of any engine (another process's
too), stays while only bookkeeping is written (PostgreSQL), and is None until it can tell."""

from __future__ import annotations

import asyncio
import time

import pytest

from lorebase_store import HeadWatch, RateWindows, Store

DOMAIN = "supply"
pytestmark = pytest.mark.anyio


async def _settled(heads: HeadWatch) -> tuple[int, int]:
    """The token once it can be told (PostgreSQL: once the listener has connected)."""
    deadline = time.monotonic() + 60
    while (token := heads.token()) is None:
        assert time.monotonic() < deadline, "the token never became known"
        await asyncio.sleep(0.02)
    return token


async def _changed(heads: HeadWatch, token: tuple[int, int], what: str) -> tuple[int, int]:
    deadline = time.monotonic() + 60
    while (now := heads.token()) == token or now is None:
        assert time.monotonic() < deadline, f"{what} never changed the token"
        await asyncio.sleep(0.02)
    return now


async def test_writes_without_an_event_change_the_token_and_bookkeeping_does_not(
    supply: Store, database_url: str
) -> None:
    other = Store.open(database_url)  # another engine, as another Keeper process would have
    notices = supply.event_notices(poll_interval_s=30.0)
    heads = HeadWatch(supply.engine, notices)
    try:
        heads.start()
        token = await _settled(heads)
        head = supply.branch(DOMAIN, "main").head_revision
        assert head is not None
        other.create_tag(DOMAIN, "heads-test", head, created_by="usr_test")  # writes no event
        token = await _changed(heads, token, "a tag of another engine")
        if supply.backend == "postgresql":  # SQLite's data_version sees every write
            RateWindows(other.engine).increment("usr_test", "reads", "m1", time.time() + 60)
            await asyncio.sleep(0.3)
            assert heads.token() == token, "bookkeeping changed the token"
        supply.create_tag(DOMAIN, "heads-test-2", head, created_by="usr_test")  # this engine
        await _changed(heads, token, "a tag of this engine")
    finally:
        await notices.close()
        heads.close()
        other.close()


async def test_without_start_a_postgresql_token_is_none(supply: Store) -> None:
    if supply.backend != "postgresql":
        pytest.skip("SQLite's token needs no listener")
    notices = supply.event_notices()
    heads = HeadWatch(supply.engine, notices)
    try:
        await asyncio.sleep(0.2)
        assert heads.token() is None
    finally:
        await notices.close()
        heads.close()
