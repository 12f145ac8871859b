"""`HeadWatch`: a token that changes whenever a branch head may have moved, cheap to ask.

Keeper keeps a read's answer in memory under the token it was read at and serves it again,
without a read transaction, while `token()` still returns the same value (docs/api.md, "Fast
answers"). The token changes

- after every announced write transaction this process commits (`engine.writes_committed`;
  `write_transaction(announce=False)` is bookkeeping no read of a Domain shows);
- on SQLite, after any other connection, in this process or another, commits a write
  (`PRAGMA data_version` on a connection of its own: a look at the shared WAL index, no
  transaction and no disk read);
- on PostgreSQL, with every notice heard of another process's announced write (the change
  feed's LISTEN, `EventNotices.follow`: an event's notice, or `<schema> -` for the rest), and
  when the listening connection is made or lost.

`token()` is None where nothing can be known of other writers: an in-memory SQLite database, or a
PostgreSQL listener that is not connected (yet). Keeper then reads as always.
"""

from __future__ import annotations

import threading
from typing import Any

import sqlalchemy as sa
import sqlean

from lorebase_store.engine import is_sqlite, writes_committed
from lorebase_store.feed.notices import EventNotices

HeadToken = tuple[int, int]


class HeadWatch:
    """Whether anything may have been written since a token was taken. On PostgreSQL `start()`
    it on the event loop that will ask (the server's: its listener lives there, and a loop that
    ends with a request, as a test client's may, must not leave one behind); `close()` releases
    SQLite's connection."""

    def __init__(self, engine: sa.Engine, notices: EventNotices) -> None:
        self.engine = engine
        self.notices = notices
        self._lock = threading.Lock()
        self._watcher: Any = None
        self._closed = False
        database = engine.url.database if is_sqlite(engine) else None
        self._file = (
            database
            if database and database != ":memory:" and "mode=memory" not in database
            else None
        )

    def token(self) -> HeadToken | None:
        """What has been written as far as can be told now; None: nothing can be told."""
        written = writes_committed(self.engine)
        if is_sqlite(self.engine):
            if self._file is None:
                return None
            with self._lock:
                if self._closed:
                    return None
                if self._watcher is None:
                    # the store's own SQLite library: another would not share its WAL index
                    self._watcher = sqlean.connect(self._file, check_same_thread=False)
                    self._watcher.isolation_level = None
                (version,) = self._watcher.execute("PRAGMA data_version").fetchone()
            return (written, int(version))
        heard = self.notices.heard()
        return None if heard is None else (written, heard)

    def start(self) -> None:
        """Listen for PostgreSQL's notices on the running event loop from now on (until the
        notices close); without it a PostgreSQL token is None. A no-op on SQLite."""
        self.notices.follow()

    def close(self) -> None:
        with self._lock:
            watcher, self._watcher, self._closed = self._watcher, None, True
        if watcher is not None:
            watcher.close()
