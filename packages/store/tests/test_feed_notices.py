"""`EventNotices`: a waiter wakes when an event is written, by NOTIFY on PostgreSQL, by a poll on
SQLite; a commit in another process's Store (another engine) reaches it the same way."""

from __future__ import annotations

import asyncio
import time

import pytest

from lorebase_core.changes import UpsertRecord
from lorebase_store import Store
from lorebase_store.testing import commit_changes

DOMAIN = "supply"
pytestmark = pytest.mark.anyio


def _commit(store: Store, value: int) -> int:
    commit_changes(store, [UpsertRecord("Supplier", "S-1001", {"risk_score": value})])
    return int(store.events(DOMAIN, after=0, limit=10_000)[-1]["sequence"])


async def test_a_commit_wakes_a_waiter_at_once(supply: Store, database_url: str) -> None:
    writer = Store.open(database_url)  # another engine, as another Keeper process would have
    # on PostgreSQL only the NOTIFY can wake it before the poll's 30 s; SQLite polls quickly
    interval = 30.0 if supply.backend == "postgresql" else 0.05
    notices = supply.event_notices(poll_interval_s=interval)
    try:
        main = supply.branch(DOMAIN, "main").id
        start = supply.latest_event_sequence(main)
        # the first poll learns where the table is; nothing newer yet, so the wait times out
        assert await notices.wait(start, 0.3, branch_id=main) == start
        began = time.monotonic()
        waiting = asyncio.create_task(notices.wait(start, 10.0, branch_id=main))
        await asyncio.sleep(0.05)
        written = await asyncio.to_thread(_commit, writer, 77)
        assert await waiting == written
        assert time.monotonic() - began < 5.0
        # an event of another branch does not wake a waiter of this one, it wakes `any`
        assert notices.known() == written
    finally:
        await notices.close()
        writer.close()


async def test_a_waiter_after_a_known_event_returns_at_once(supply: Store) -> None:
    notices = supply.event_notices(poll_interval_s=0.05)
    try:
        began = time.monotonic()
        newest = await notices.wait(0, 5.0)
        assert newest == supply.events(DOMAIN, limit=10_000)[-1]["sequence"]
        assert time.monotonic() - began < 2.0
    finally:
        await notices.close()
