"""Revision-stamped answers: the Lorebase-Revision header, ETags, 304s and the answer cache.

An answer's ETag is `"<revision>.<digest>"`: the Revision it was read at and 16 hex digits of a
SHA-256 over the request (method, path, query parameters, body) and the caller's read scope. The
same request at the same Revision returns the same bytes, so answers are cached under their ETag:
a commit moves the head, and with it every ETag, so a cached answer is never stale.

Keeper keeps answers in two places, each a `KeptAnswers`: `AnswerCache` here, by ETag, and the
fast path (`fast_answers.FastAnswers`), by a digest of the request, its credential and the
`HeadWatch` token. They are two because they answer at two depths and know different things
when they look: the fast path answers before routing, authentication against the store and the
worker thread, so it knows only the request's bytes and whether anything was written since; the
answer cache answers once the read has opened its transaction, so it knows the Revision and the
read scope, which is what the ETag (and so every 304) is made of. They share one rule of
invalidation, `KeptAnswers`'s: nothing is ever invalidated.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from fastapi import Request, Response

from lorebase_core.access import ReadScope
from lorebase_core.schema import canonical_json
from lorebase_keeper.trace.context import current_step
from lorebase_platform.settings import CacheSettings

if TYPE_CHECKING:
    from lorebase_keeper.auth.authz import Principal

JSON = "application/json"
MARKDOWN = "text/markdown; charset=utf-8"
REVISION_HEADER = "Lorebase-Revision"


@dataclass(frozen=True)
class Rendered:
    body: bytes
    media_type: str


@dataclass
class AnswerSlot:
    """What the fast path (fast_answers.py) learns of the read a route answered: the ETag of its
    stamped answer and the principal it read as. Filled in the route's worker thread."""

    etag: str | None = None
    principal: Principal | None = None


ANSWER_SLOT: ContextVar[AnswerSlot | None] = ContextVar("lorebase_answer_slot", default=None)


Key = TypeVar("Key", bound=Hashable)
Kept = TypeVar("Kept")


class KeptAnswers(Generic[Key, Kept]):
    """Answers kept in memory within keeper.cache's limits, least recently used out first.

    The one rule of both answer caches: an answer is kept under a key that names everything it
    depends on, what it was read at included (the ETag's Revision, the fast path's `HeadWatch`
    token). A write never looks for entries to drop: it changes the key the next read looks up,
    and what was kept before is no longer found and leaves as the least recently used.
    """

    def __init__(self, settings: CacheSettings, size: Callable[[Kept], int]) -> None:
        self.max_entries = settings.max_entries
        self.max_entry_bytes = settings.max_entry_bytes
        self._size = size
        self._entries: OrderedDict[Key, Kept] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Key) -> Kept | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: Key, kept: Kept) -> None:
        """Keep `kept` unless it is larger than an entry may be (or nothing is kept)."""
        if self.max_entries == 0 or self._size(kept) > self.max_entry_bytes:
            return
        with self._lock:
            self._entries[key] = kept
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)


class AnswerCache(KeptAnswers[str, Rendered]):
    """Rendered answers by ETag."""

    def __init__(self, settings: CacheSettings) -> None:
        super().__init__(settings, lambda rendered: len(rendered.body))


def render_json(body: object) -> bytes:
    """Compact UTF-8 JSON; the caller builds `body` in a deterministic order."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def request_digest(request: Request, body: object, scope: ReadScope | None) -> str:
    text = canonical_json(
        {
            "method": request.method,
            "path": request.url.path,
            "query": sorted(request.query_params.multi_items()),
            "body": body,
            "scope": scope.fingerprint if scope is not None else "",
        }
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def make_etag(revision: str | None, digest: str) -> str:
    return f'"{revision or "empty"}.{digest}"'


def etag_candidates(if_none_match: str | None) -> set[str]:
    """The ETags of an If-None-Match header (weak ones as strong: reads compare them weakly)."""
    if not if_none_match:
        return set()
    return {candidate.strip().removeprefix("W/") for candidate in if_none_match.split(",")}


def stamped(
    request: Request,
    cache: AnswerCache,
    *,
    revision: str | None,
    scope: ReadScope | None,
    compute: Callable[[str], object],
    body: object = None,
    markdown: bool = False,
) -> Response:
    """The answer to a read at `revision`: a 304, a cached rendering, or `compute(etag)` rendered.

    `compute` gets the ETag (context packs repeat it in their body) and returns a JSON-ready
    value, or the Markdown text when `markdown` is true.
    """
    etag = make_etag(revision, request_digest(request, body, scope))
    headers = {"ETag": etag, "Cache-Control": "private, no-cache"}
    if revision is not None:
        headers[REVISION_HEADER] = revision
    slot = ANSWER_SLOT.get()
    if slot is not None:
        slot.etag = etag
    candidates = etag_candidates(request.headers.get("if-none-match"))
    step = current_step()
    if etag in candidates:
        if step is not None:
            step.cache = "not_modified"
        return Response(status_code=304, headers=headers)
    rendered = cache.get(etag)
    if step is not None:
        step.cache = "hit" if rendered is not None else "miss" if cache.max_entries else "bypass"
    if rendered is None:
        value = compute(etag)  # raises for what does not exist: `*` then matches nothing
        if markdown:
            rendered = Rendered(str(value).encode(), MARKDOWN)
        else:
            rendered = Rendered(render_json(value), JSON)
        cache.put(etag, rendered)
    if "*" in candidates:
        if step is not None:
            step.cache = "not_modified"
        return Response(status_code=304, headers=headers)
    return Response(rendered.body, media_type=rendered.media_type, headers=headers)


def plain(body: object, *, status: int = 200, revision: str | None = None) -> Response:
    """An answer that is not cached (writes, and reads of mutable state such as branches)."""
    headers = {"Cache-Control": "no-store"}
    if revision is not None:
        headers[REVISION_HEADER] = revision
    return Response(render_json(body), status_code=status, media_type=JSON, headers=headers)
