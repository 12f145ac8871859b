"""`Reader`: one read transaction at one Revision of a branch.

Keeper answers each request from one Reader, so every part of an answer comes from the same
Revision, the one the answer names.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property

import sqlalchemy as sa

from lorebase_core.access import ReadScope
from lorebase_core.context import LineageEntry, RecentChange
from lorebase_core.errors import BranchNotFound, Forbidden
from lorebase_core.graph_requests import NeighborhoodRequest, TraverseRequest
from lorebase_core.query import Query
from lorebase_core.schema import Schema
from lorebase_core.search_request import SearchRequest
from lorebase_store import graph
from lorebase_store.commits.statistics import Statistics, read_statistics
from lorebase_store.engine import read_transaction
from lorebase_store.feed import reads as feed_reads
from lorebase_store.feed.reads import ChangesPage
from lorebase_store.graph import NeighborhoodResult, TraverseResult
from lorebase_store.health.report import check_health
from lorebase_store.health.shapes import HealthLimits, HealthReport
from lorebase_store.reads import context_reads
from lorebase_store.reads import history as history_reads
from lorebase_store.reads import records as reads
from lorebase_store.reads.context_reads import SeedVersion
from lorebase_store.reads.query import QueryResult, run_query
from lorebase_store.reads.resolve_misses import ResolveMiss, read_misses
from lorebase_store.reads.value_index import ValueIndex, attribute_values, value_index
from lorebase_store.results import (
    HistoryPage,
    Lineage,
    LinkVersion,
    RecordVersion,
    RevisionInfo,
)
from lorebase_store.search import SearchResult
from lorebase_store.search import rank as search_rank
from lorebase_store.search import run as search_run
from lorebase_store.search import vectors as search_vectors
from lorebase_store.versioned.schemas import schema_at
from lorebase_store.versioned.views import (
    Authorize,
    View,
    load_branch,
    make_view,
    resolve_revision,
    revisions_by_pk,
    visible_from,
)

# A Revision's schema never changes: its digest is looked up once per process.


class Reader:
    """Reads of one View inside one transaction; made by `Store.reader`."""

    def __init__(
        self, connection: sa.Connection, view: View, authorize: Authorize | None = None
    ) -> None:
        self.connection = connection
        self.view = view
        self.authorize = authorize
        """Refuses branches the caller may not read: their Revisions are unknown to this read."""

    @property
    def revision(self) -> str | None:
        return self.view.revision

    @cached_property
    def schema(self) -> Schema:
        """The schema of the Revision read (the Domain's first schema before any commit)."""
        return schema_at(self.connection, self.view.domain, self.view.revision)

    def revision_info(self, text: str) -> RevisionInfo:
        """A Revision of the Domain by id, tag or unique prefix: one of the branch's history or
        of a branch the caller reads (`authorize`); the others are unknown."""
        visible = visible_from(self.view.history, self.authorize)
        return resolve_revision(self.connection, self.view.domain, text, visible)

    def branch_head(self, name: str) -> RevisionInfo | None:
        """The head Revision of a branch of the Domain; None when there is no such branch the
        caller reads (`authorize`), or it has no Revision yet."""
        if self.authorize is not None:
            try:
                self.authorize(name)
            except Forbidden:
                return None
        try:
            branch = load_branch(self.connection, self.view.domain, name)
        except BranchNotFound:
            return None
        if branch.head_revision is None:
            return None
        return resolve_revision(self.connection, self.view.domain, branch.head_revision)

    def revisions(self, pks: list[int]) -> dict[int, RevisionInfo]:
        """Revisions by their row key (the provenance of values), in one statement."""
        return revisions_by_pk(self.connection, pks)

    def changes(
        self,
        *,
        since: str | None,
        kinds: Collection[str] | None,
        limit: int,
        max_scan: int,
    ) -> ChangesPage:
        """The polling feed of the branch: revision events of its first-parent Revisions after
        `since`, oldest first (`feed.changes`; 409 resync-required off the history)."""
        return feed_reads.changes(
            self.connection,
            self.view,
            since=since,
            kinds=kinds,
            limit=limit,
            max_scan=max_scan,
            authorize=self.authorize,
        )

    def latest_event_sequence(self) -> int:
        """The sequence of the newest event of the branch (0 before any): where a stream that
        resumes after nothing starts."""
        return feed_reads.latest_sequence(self.connection, self.view.branch.id)

    # -- Records and Links -------------------------------------------------------------------
    def get_record(self, kind: str, key: str) -> RecordVersion | None:
        return reads.get_record(self.connection, self.view, kind, key)

    def records(
        self, kind: str, *, limit: int, after_key: str | None = None
    ) -> list[RecordVersion]:
        return reads.list_records(
            self.connection, self.view, kind, limit=limit, after_key=after_key
        )

    def count(self, kind: str) -> int:
        return reads.count_records(self.connection, self.view, kind)

    def links(
        self,
        relation: str,
        *,
        from_key: str | None = None,
        to_key: str | None = None,
        limit: int,
        after: str | None = None,
    ) -> list[LinkVersion]:
        return reads.links_of(
            self.connection,
            self.view,
            relation,
            from_key=from_key,
            to_key=to_key,
            limit=limit,
            after=after,
        )

    def count_links(
        self, relation: str, *, from_key: str | None = None, to_key: str | None = None
    ) -> int:
        return reads.count_links(
            self.connection, self.view, relation, from_key=from_key, to_key=to_key
        )

    # -- history -----------------------------------------------------------------------------
    def history(
        self,
        kind: str,
        key: str,
        *,
        limit: int,
        cursor: str | None,
        with_values: bool,
        attributes: Sequence[str] | None = None,
    ) -> HistoryPage:
        return history_reads.history(
            self.connection,
            self.view,
            kind,
            key,
            limit=limit,
            cursor=cursor,
            with_values=with_values,
            attributes=attributes,
        )

    def lineage(self, kind: str, key: str, *, count_max: int) -> Lineage:
        return history_reads.lineage(self.connection, self.view, kind, key, count_max=count_max)

    def explain(self, kind: str, key: str, *, count_max: int) -> tuple[RevisionInfo, Lineage]:
        return history_reads.explain(self.connection, self.view, kind, key, count_max=count_max)

    # -- queries and graph walks -------------------------------------------------------------
    def query(self, query: Query, scope: ReadScope, *, offset: int = 0) -> QueryResult:
        return run_query(self.connection, self.view, self.schema, query, scope, offset=offset)

    def traverse(
        self, request: TraverseRequest, scope: ReadScope, *, max_fanout: int
    ) -> TraverseResult:
        return graph.traverse(
            self.connection, self.view, self.schema, scope, request, max_fanout=max_fanout
        )

    def neighborhood(
        self,
        request: NeighborhoodRequest,
        scope: ReadScope,
        *,
        max_records: int,
        max_links: int,
        max_fanout: int,
    ) -> NeighborhoodResult:
        return graph.neighborhood(
            self.connection,
            self.view,
            self.schema,
            scope,
            request,
            max_records=max_records,
            max_links=max_links,
            max_fanout=max_fanout,
        )

    # -- health of the data (docs/health.md) --------------------------------------------------
    def health(
        self, kinds: Iterable[str], relations: Iterable[str], limits: HealthLimits
    ) -> HealthReport:
        """The health of these Kinds and Relations at the Revision read."""
        return check_health(self.connection, self.view, self.schema, kinds, relations, limits)

    # -- context packs -----------------------------------------------------------------------
    def seed_versions(self, refs: Iterable[tuple[str, str]]) -> dict[str, SeedVersion]:
        """The live versions of context pack seeds `(kind, key)`, by reference."""
        return context_reads.seed_versions(self.connection, self.view, refs)

    def lineage_entries(self, seeds: Iterable[SeedVersion]) -> list[LineageEntry]:
        """Per seed, the Attributes each Revision set last, newest first."""
        return context_reads.lineage_entries(self.connection, seeds)

    def recent_changes(
        self, records: Mapping[str, Collection[str]], *, limit: int, since: str | None = None
    ) -> list[RecentChange]:
        """The latest changes of some Records (keys by Kind) on the branch, newest first."""
        return context_reads.recent_changes(
            self.connection, self.view, records, limit=limit, since=since, authorize=self.authorize
        )

    def attribute_values(self, kind: str, attribute: str, *, limit: int) -> list[tuple[str, int]]:
        """The distinct values of one Attribute of a Kind with their Records, most frequent
        first (`reads.value_index.attribute_values`)."""
        return attribute_values(self.connection, self.view, kind, attribute, limit=limit)

    # -- statistics --------------------------------------------------------------------------
    def statistics(self) -> Statistics | None:
        """Statistics of the Domain's default branch (None when never counted)."""
        return read_statistics(self.connection, self.view.domain.id)

    # -- search (docs/search.md) -------------------------------------------------------------
    def search(
        self,
        request: SearchRequest,
        scope: ReadScope,
        *,
        min_similarity: float = 0.3,
        candidates: int = search_rank.CANDIDATES_PER_TERM,
    ) -> SearchResult:
        """A search at the head of the branch read (`lorebase_store.search.search`)."""
        return search_run.search(
            self.connection,
            self.view,
            self.schema,
            scope,
            request,
            min_similarity=min_similarity,
            candidates=candidates,
        )

    def vectors_stamp(self, model: str) -> str:
        """Changes whenever a stored vector of the model does (vectors have no Revision)."""
        return search_vectors.vectors_stamp(self.connection, self.view.domain.id, model)

    # -- resolve (docs/resolve.md) -----------------------------------------------------------
    def value_index(self, *, max_indexed_values: int, max_value_length: int) -> ValueIndex:
        """The values POST /resolve matches words against, counted at this Revision."""
        return value_index(
            self.connection,
            self.view,
            self.schema,
            max_indexed_values=max_indexed_values,
            max_value_length=max_value_length,
        )

    def resolve_misses(self, *, retention_days: int | None = None) -> list[ResolveMiss]:
        """The phrases POST /resolve recorded as unknown in this Domain, most frequent first.

        With `retention_days` (read.resolve.misses), phrases last seen before it are left out.
        """
        return read_misses(self.connection, self.view.domain.id, retention_days=retention_days)


@contextmanager
def open_reader(
    engine: sa.Engine,
    domain: str,
    branch: str | None,
    at: str | None,
    authorize: Authorize | None = None,
) -> Iterator[Reader]:
    with read_transaction(engine) as connection:
        view = make_view(connection, domain, branch, at, authorize=authorize)
        yield Reader(connection, view, authorize)
