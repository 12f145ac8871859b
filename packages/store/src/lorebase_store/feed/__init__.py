"""Following a branch: its events after a sequence, its polling feed and the change notices.

| module | holds |
| --- | --- |
| `reads` | `branch_events` (the stream's events), `changes` (the polling feed), `ChangesPage` |
| `notices` | `EventNotices`: wakes waiters when events are written (LISTEN/NOTIFY or a poll) |
| `heads` | `HeadWatch`: a token that changes when a branch head may have moved |
| `notify` | `insert_event`: an event row, and on PostgreSQL its NOTIFY in the same statement |
"""

from __future__ import annotations

from lorebase_store.feed.heads import HeadToken, HeadWatch
from lorebase_store.feed.notices import EventNotices
from lorebase_store.feed.notify import CHANNEL, insert_event
from lorebase_store.feed.reads import ChangesPage, EventBatch, branch_events, changes

__all__ = [
    "CHANNEL",
    "ChangesPage",
    "EventBatch",
    "EventNotices",
    "HeadToken",
    "HeadWatch",
    "branch_events",
    "changes",
    "insert_event",
]
