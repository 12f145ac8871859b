"""Helpers for tests that commit to a store (Lorebase's own and those of code built on it)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa

from lorebase_core.changes import Change, Origin
from lorebase_store.commits import CommitRequest
from lorebase_store.results import RevisionInfo
from lorebase_store.store import Store

TEST_ORIGIN = Origin("operation", "test")


def change_request(
    message: str = "test change",
    *,
    domain: str = "supply",
    branch: str | None = None,
    author: str = "usr_tester",
    origin: Origin = TEST_ORIGIN,
    **options: Any,
) -> CommitRequest:
    """A CommitRequest for a test's change set (origin: an Operation by default)."""
    return CommitRequest(domain, branch, author, message, origin, **options)


def commit_changes(store: Store, changes: Iterable[Change], **options: Any) -> RevisionInfo:
    """Commit `changes` and return the Revision they made (there must be one)."""
    result = store.commit(change_request(**options), changes)
    assert result.revision is not None, "the changes made no Revision"
    return result.revision


@contextmanager
def statements_run(store: Store) -> Iterator[list[str]]:
    """The SQL statements the store's engine runs meanwhile (to bound what a request costs)."""
    seen: list[str] = []

    def count(
        _connection: Any, _cursor: Any, statement: str, _parameters: Any, *_rest: Any
    ) -> None:
        seen.append(statement)

    sa.event.listen(store.engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", count)
