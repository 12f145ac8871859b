"""`Store`: the one interface over SQLite and PostgreSQL that the rest of Lorebase uses."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar

import sqlalchemy as sa

from lorebase_core.changes import Change
from lorebase_core.errors import AlreadyExists
from lorebase_core.schema import Schema
from lorebase_platform.settings import DatabaseSettings, SessionSettings
from lorebase_store import access as access_rows
from lorebase_store import feed
from lorebase_store import oidc_identities as identity_rows
from lorebase_store import sessions as session_rows
from lorebase_store import tables as t
from lorebase_store.clock import now_stamp
from lorebase_store.commits.commit import CommitRequest, commit
from lorebase_store.commits.statistics import Statistics, read_statistics, recount
from lorebase_store.engine import (
    create_store_engine,
    read_transaction,
    write_transaction,
)
from lorebase_store.feed import EventBatch, EventNotices
from lorebase_store.jobs import Jobs
from lorebase_store.migrate import upgrade
from lorebase_store.plans import Statement, plan_summaries
from lorebase_store.reads.diff import diff
from lorebase_store.reads.reader import Reader, open_reader
from lorebase_store.results import (
    BranchInfo,
    CommitResult,
    Diff,
    DomainInfo,
    RevisionInfo,
)
from lorebase_store.search import embedding_cursor, put_vector
from lorebase_store.search.embedding_cursor import EmbeddingCursor, EmbeddingWork, SavedEmbeddings
from lorebase_store.trace import pruning, read_audit, sessions, writing
from lorebase_store.trace.read_audit import AuditPage, ReadAuditEntry
from lorebase_store.trace.steps import (
    SessionVisibility,
    TraceSession,
    TraceSessionPage,
    TraceStep,
    TraceWritten,
)
from lorebase_store.versioned.domains import check_branch_name, insert_domain
from lorebase_store.versioned.schemas import schema_at
from lorebase_store.versioned.views import (
    REVISION_ROWS,
    Authorize,
    View,
    list_branches,
    load_branch,
    load_domain,
    make_view,
    resolve_revision,
    revision_ancestry,
    revision_info,
    revision_segments,
)
from lorebase_store.writes.branches import BranchMode, create_branch_on, find_branch
from lorebase_store.writes.writes import Writes

Params = ParamSpec("Params")
Answer = TypeVar("Answer")


class Store:
    """Versioned Records and Links of Domains, on one database."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    @classmethod
    def open(cls, url: str, *, pool_size: int = 5, busy_timeout_ms: int = 30000) -> Store:
        """Open (and migrate) the database at `url`."""
        engine = create_store_engine(url, pool_size=pool_size, busy_timeout_ms=busy_timeout_ms)
        upgrade(engine)
        return cls(engine)

    @classmethod
    def from_settings(cls, database: DatabaseSettings) -> Store:
        """Open the database the `database` settings name."""
        return cls.open(
            database.resolved_url(),
            pool_size=database.pool_size,
            busy_timeout_ms=database.busy_timeout_ms,
        )

    def close(self) -> None:
        self.engine.dispose()

    @property
    def backend(self) -> str:
        """`sqlite` or `postgresql`."""
        return self.engine.dialect.name

    def plan_summaries(self, statements: Sequence[Statement]) -> list[dict[str, Any]]:
        """The plans of `statements` (from `collect_statements`), read with EXPLAIN only: node
        types, indexes and tables scanned, and on PostgreSQL the estimated rows and cost. A
        statement EXPLAIN cannot take gets `{"statement", "error"}`; nothing is raised."""
        if not statements:
            return []
        try:
            with read_transaction(self.engine) as connection:
                return plan_summaries(connection, statements)
        except sa.exc.SQLAlchemyError as exc:
            error = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
            return [{"statement": text.strip()[:200], "error": error} for text, _ in statements]

    def ping(self) -> bool:
        """Whether the database answers."""
        try:
            with self.engine.connect() as connection:
                connection.execute(sa.text("SELECT 1"))
        except sa.exc.SQLAlchemyError:
            return False
        return True

    # -- Domains -----------------------------------------------------------------------------
    def create_domain(
        self,
        schema: Schema,
        *,
        created_by: str,
        default_branch: str = "main",
        settings: dict[str, Any] | None = None,
        created_at: str | None = None,
    ) -> DomainInfo:
        """A new Domain with its default branch (protected, empty until the first commit)."""
        return self._write(
            insert_domain,
            schema,
            created_by=created_by,
            default_branch=default_branch,
            settings=settings,
            created_at=created_at,
        )

    def domain(self, name: str) -> DomainInfo:
        return self._read(load_domain, name)

    def has_domain(self, name: str) -> bool:
        with read_transaction(self.engine) as connection:
            return (
                connection.execute(
                    sa.select(t.domains.c.id).where(t.domains.c.name == name)
                ).scalar()
                is not None
            )

    def domains(self) -> list[DomainInfo]:
        with read_transaction(self.engine) as connection:
            names = (
                connection.execute(sa.select(t.domains.c.name).order_by(t.domains.c.name))
                .scalars()
                .all()
            )
            return [load_domain(connection, name) for name in names]

    def schema(self, domain: str, *, branch: str | None = None, at: str | None = None) -> Schema:
        """The schema a view reads with: its Revision's, or the Domain's first before any commit."""
        with read_transaction(self.engine) as connection:
            view = make_view(connection, domain, branch, at)
            return schema_at(connection, view.domain, view.revision)

    # -- commits -----------------------------------------------------------------------------
    def commit(self, request: CommitRequest, changes: Iterable[Change]) -> CommitResult:
        return commit(self.engine, request, changes)

    @property
    def writes(self) -> Writes:
        """Executions, task branches, Proposals, merges and the audit log."""
        return Writes(self.engine)

    # -- branches and tags -------------------------------------------------------------------
    def create_branch(
        self,
        domain: str,
        name: str,
        *,
        from_branch: str | None = None,
        at: str | None = None,
        mode: BranchMode = "overlay",
        created_by: str,
        protected: bool = False,
        reserved_prefix: str | None = None,
    ) -> BranchInfo:
        """A branch starting at the head of `from_branch` (or at Revision `at` of it).

        Names under `reserved_prefix` are refused (422 branch-name-reserved), and so is a name
        a live branch has but for case (409 branch-name-taken).
        """
        return self._write(
            create_branch_on,
            domain,
            name,
            from_branch=from_branch,
            at=at,
            mode=mode,
            created_by=created_by,
            protected=protected,
            reserved_prefix=reserved_prefix,
        )

    def branches(self, domain: str) -> list[BranchInfo]:
        with read_transaction(self.engine) as connection:
            return list_branches(connection, load_domain(connection, domain))

    def branch(self, domain: str, name: str) -> BranchInfo:
        with read_transaction(self.engine) as connection:
            return load_branch(connection, load_domain(connection, domain), name)

    def put_vector(
        self,
        domain_id: int,
        kind: str,
        key: str,
        *,
        model: str,
        vector: Sequence[float],
        updated_by: str,
    ) -> dict[str, Any]:
        """Store (or replace) a Record's vector for a model, in its own write transaction."""
        return self._write(put_vector, domain_id, kind, key, model, vector, updated_by)

    # -- vectors made by Scribe (docs/scribe.md) ---------------------------------------------
    def embedding_work(
        self, domain: str, *, model: str, dimensions: int, limit: int
    ) -> EmbeddingWork:
        """The next page of the Records of `domain` whose vectors for `model` are due: those
        its default branch changed since the embedding cursor, or every one (a backfill)."""
        return self._read(
            embedding_cursor.embedding_work, domain, model=model, dimensions=dimensions, limit=limit
        )

    def save_embeddings(
        self,
        work: EmbeddingWork,
        model: str,
        vectors: Sequence[Sequence[float] | None],
        *,
        updated_by: str,
    ) -> SavedEmbeddings:
        """Store a page's vectors (None: drop it) and move the cursor past it, in one
        transaction; 409 Conflict when the cursor moved since the page was read."""
        return self._write(
            embedding_cursor.save_embeddings, work, model, vectors, updated_by=updated_by
        )

    def embedding_cursor(self, domain: str) -> EmbeddingCursor | None:
        """Where the record_embeddings job stands for `domain` (None: it has not started)."""
        with read_transaction(self.engine) as connection:
            return embedding_cursor.read_cursor(connection, load_domain(connection, domain).id)

    def reset_embeddings(self, domain: str) -> bool:
        """Make the next record_embeddings run of `domain` a backfill; whether it had a cursor."""
        return self._write(embedding_cursor.reset_embeddings, domain)

    def find_branch(self, domain: str, name: str) -> BranchInfo | None:
        """The live branch `name`, or None when there is none (no list of every branch)."""
        with read_transaction(self.engine) as connection:
            return find_branch(connection, load_domain(connection, domain), name)

    def create_tag(
        self, domain: str, name: str, revision: str, *, created_by: str, message: str = ""
    ) -> RevisionInfo:
        check_branch_name(name)
        with write_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            target = resolve_revision(connection, info, revision)
            exists = connection.execute(
                sa.select(t.tags.c.name).where(t.tags.c.domain_id == info.id, t.tags.c.name == name)
            ).scalar()
            if exists is not None:
                raise AlreadyExists(f"Tag {name!r} already exists in Domain {domain!r}")
            connection.execute(
                t.tags.insert().values(
                    domain_id=info.id,
                    name=name,
                    revision_id=target.id,
                    message=message,
                    created_at=now_stamp(),
                    created_by=created_by,
                )
            )
            return target

    def tags(self, domain: str) -> dict[str, str]:
        with read_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            rows = connection.execute(
                sa.select(t.tags.c.name, t.tags.c.revision_id)
                .where(t.tags.c.domain_id == info.id)
                .order_by(t.tags.c.name)
            )
            return {row.name: row.revision_id for row in rows}

    # -- Revisions ---------------------------------------------------------------------------
    def revision(self, domain: str, text: str) -> RevisionInfo:
        with read_transaction(self.engine) as connection:
            return resolve_revision(connection, load_domain(connection, domain), text)

    def log(self, domain: str, *, branch: str | None = None, limit: int = 50) -> list[RevisionInfo]:
        """The first-parent Revisions of a branch, newest first."""
        with read_transaction(self.engine) as connection:
            view = make_view(connection, domain, branch)
            found: list[RevisionInfo] = []
            for segment in view.history:
                rows = (
                    connection.execute(
                        REVISION_ROWS.where(
                            t.revisions.c.branch_id == segment.branch_id,
                            t.revisions.c.seq <= segment.upto,
                        )
                        .order_by(t.revisions.c.seq.desc())
                        .limit(limit - len(found))
                    )
                    .mappings()
                    .all()
                )
                found.extend(revision_info(connection, row) for row in rows)
                if len(found) >= limit:
                    break
            return found

    # -- reads -------------------------------------------------------------------------------
    def reader(
        self,
        domain: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        authorize: Authorize | None = None,
    ) -> AbstractContextManager[Reader]:
        """One read transaction at the head of `branch` (or at Revision `at` of it).

        `authorize(branch_name)` raises when the caller may not read a branch: it is called
        before `at` is resolved, and Revisions of branches it refuses answer as unknown.
        """
        return open_reader(self.engine, domain, branch, at, authorize)

    def view(self, domain: str, *, branch: str | None = None, at: str | None = None) -> View:
        return self._read(make_view, domain, branch, at)

    def diff(self, domain: str, from_revision: str, to_revision: str) -> Diff:
        """What changed from one Revision to another (any two Revisions of the Domain)."""
        with read_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            ends = [
                resolve_revision(connection, info, text) for text in (from_revision, to_revision)
            ]
            reads = [revision_segments(connection, revision) for revision in ends]
            histories = [revision_ancestry(connection, revision) for revision in ends]
            return diff(connection, reads, histories, ends[0].id, ends[1].id)

    def events(self, domain: str, *, after: int = 0, limit: int = 100) -> list[dict[str, Any]]:
        """Events of a Domain after a sequence number, oldest first."""
        with read_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            rows = connection.execute(
                sa.select(t.events.c.sequence, t.events.c.payload)
                .where(t.events.c.domain_id == info.id, t.events.c.sequence > after)
                .order_by(t.events.c.sequence)
                .limit(limit)
            )
            return [{"sequence": row.sequence, **dict(row.payload)} for row in rows]

    def branch_events(
        self,
        branch_id: int,
        *,
        after: int,
        kinds: Collection[str] | None = None,
        limit: int = 100,
    ) -> EventBatch:
        """Events of a branch (by its id, `BranchInfo.id`) after a sequence, oldest first, those
        of Revisions and Operations `kinds` keeps (`feed.branch_events`)."""
        return self._read(
            feed.reads.branch_events, branch_id, after=after, kinds=kinds, limit=limit
        )

    def latest_event_sequence(self, branch_id: int) -> int:
        """The sequence of the newest event of a branch (0 before any): where a stream starts."""
        return self._read(feed.reads.latest_sequence, branch_id)

    def event_notices(self, *, poll_interval_s: float = 1.0) -> EventNotices:
        """A waiter for new events of this database (`feed.EventNotices`), one per process."""
        return EventNotices(self.engine, poll_interval_s=poll_interval_s)

    # -- statistics --------------------------------------------------------------------------
    def recount_statistics(self, domain: str) -> Statistics:
        """Count the statistics of the default branch head again (Scribe does it periodically)."""
        with write_transaction(self.engine) as connection:
            view = make_view(connection, domain)
            schema = Reader(connection, view).schema
            attributes = {name: list(kind.attributes) for name, kind in schema.kinds.items()}
            return recount(connection, view, attributes)

    def statistics_behind(self, domain: str) -> bool:
        """Whether the statistics are missing or describe an older head than the default
        branch's (coverage then says `approximate`): what `recount_statistics` would change."""
        with read_transaction(self.engine) as connection:
            info = load_domain(connection, domain)
            head = load_branch(connection, info, info.default_branch).head_revision
            found = read_statistics(connection, info.id)
            return head is not None and (found is None or found.as_of != head)

    @property
    def jobs(self) -> Jobs:
        """Scribe's jobs and their leases (docs/scribe.md)."""
        return Jobs(self.engine)

    # -- principals, keys and grants (docs/auth.md) -----------------------------------------
    def ensure_principal(
        self,
        principal_id: str,
        *,
        principal_type: access_rows.PrincipalType = "user",
        display_name: str = "",
    ) -> access_rows.PrincipalInfo:
        return self._write(
            access_rows.ensure_principal,
            principal_id,
            principal_type=principal_type,
            display_name=display_name,
        )

    def principal(self, principal_id: str) -> access_rows.PrincipalInfo:
        """The principal (raises PrincipalNotFound)."""
        return self._read(access_rows.principal, principal_id)

    def create_key(self, principal_id: str, *, description: str = "") -> access_rows.NewKey:
        return self._write(access_rows.create_key, principal_id, description=description)

    def keys(self, principal_id: str | None = None) -> list[access_rows.KeyInfo]:
        return self._read(access_rows.list_keys, principal_id)

    def revoke_key(self, key_id: str) -> access_rows.KeyRevocation:
        """Revoke an API key and, in the same transaction, every session signed in with it."""
        with write_transaction(self.engine) as connection:
            key = access_rows.revoke_key(connection, key_id)
            ended = session_rows.revoke_key_sessions(connection, key_id)
            return access_rows.KeyRevocation(key, ended)

    def bind_oidc_identity(
        self,
        *,
        issuer: str,
        subject: str,
        principal_id: str,
        principal_type: access_rows.PrincipalType = "user",
        display_name: str = "",
    ) -> identity_rows.OidcBinding:
        """The principal of an OIDC identity; the first time, `principal_id`, made and bound.

        Two first sign-ins of one identity at once both end with the one binding.
        """
        for attempt in range(2):
            try:
                return self._write(
                    identity_rows.bind_oidc_identity,
                    issuer=issuer,
                    subject=subject,
                    principal_id=principal_id,
                    principal_type=principal_type,
                    display_name=display_name,
                )
            except sa.exc.IntegrityError:
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def link_oidc_identity(
        self, principal_id: str, *, issuer: str, subject: str
    ) -> identity_rows.OidcIdentity:
        return self._write(
            identity_rows.link_oidc_identity, principal_id, issuer=issuer, subject=subject
        )

    def unlink_oidc_identity(self, principal_id: str) -> identity_rows.OidcIdentity | None:
        return self._write(identity_rows.unlink_oidc_identity, principal_id)

    def oidc_identities(self) -> list[identity_rows.OidcIdentity]:
        return self._read(identity_rows.oidc_identities)

    def key_principal(self, presented: str) -> access_rows.PrincipalInfo | None:
        """The principal of a live API key (None: malformed, unknown or revoked)."""
        return self._read(access_rows.key_principal, presented)

    # -- browser sessions (docs/auth.md, "Browser sessions") --------------------------------
    def create_session(
        self,
        principal_id: str,
        *,
        method: session_rows.SessionMethod,
        key_id: str | None = None,
        claims: dict[str, Any] | None = None,
        settings: SessionSettings,
    ) -> session_rows.NewSession:
        """A new session (its id is in the answer only); prunes ended ones, enforces the limit."""
        return self._write(
            session_rows.create_session,
            principal_id,
            method=method,
            key_id=key_id,
            claims=claims or {},
            settings=settings,
        )

    def session(
        self, session_id: str, settings: SessionSettings
    ) -> session_rows.SessionInfo | None:
        """The live session of a presented id, touched (None: unknown, revoked or expired)."""
        with read_transaction(self.engine) as connection:
            found = session_rows.find_session(connection, session_id, settings)
        if found is None or not session_rows.touch_due(found, settings):
            return found
        with write_transaction(self.engine, announce=False) as connection:
            return session_rows.touch_session(connection, session_id, found, settings)

    def revoke_session(self, session_id: str) -> bool:
        """End one session; False when it was not live."""
        return self._write(session_rows.revoke_session, session_id)

    def revoke_principal_sessions(self, principal_id: str) -> int:
        """End every session of a principal; how many were live."""
        return self._write(session_rows.revoke_principal_sessions, principal_id)

    def add_grant(
        self,
        principal_id: str,
        *,
        domain: str,
        role: str,
        branch: str = "*",
        kinds: list[str] | None = None,
        clearances: list[str] | None = None,
    ) -> access_rows.GrantInfo:
        return self._write(
            access_rows.add_grant,
            principal_id,
            domain=domain,
            role=role,
            branch=branch,
            kinds=kinds,
            clearances=clearances,
        )

    def grants(self, principal_id: str | None = None) -> list[access_rows.GrantInfo]:
        return self._read(access_rows.grants_of, principal_id)

    def revoke_grant(self, grant_id: int) -> None:
        self._write(access_rows.revoke_grant, grant_id)

    # -- the agent trace and the read audit (docs/storage.md) --------------------------------
    def write_trace(
        self, steps: Sequence[TraceStep], *, max_steps_per_session: int, inferred_idle_s: float
    ) -> TraceWritten:
        """Write a batch of steps in one transaction; steps past a session's cap are dropped."""
        with write_transaction(self.engine, announce=False) as connection:
            return writing.write_trace(
                connection,
                steps,
                max_steps_per_session=max_steps_per_session,
                inferred_idle_s=inferred_idle_s,
            )

    def trace_sessions(
        self,
        *,
        visibility: SessionVisibility,
        actor: str | None = None,
        domain: str | None = None,
        limit: int,
        cursor: str | None = None,
    ) -> TraceSessionPage:
        """Session summaries per Domain the lister may see, newest first (summaries only)."""
        return self._read(
            sessions.trace_sessions,
            visibility=visibility,
            actor=actor,
            domain=domain,
            limit=limit,
            cursor=cursor,
        )

    def trace_session(self, principal: str, session_id: str) -> TraceSession | None:
        """The timeline of `principal`'s session `session_id`, or None."""
        return self._read(sessions.trace_session, principal, session_id)

    def prune_trace(self, older_than: str) -> int:
        """Delete the steps with `at < older_than`, a transaction per chunk: how many."""
        return self._prune(pruning.prune_chunk, older_than)

    def write_read_audit(self, entries: Sequence[ReadAuditEntry]) -> int:
        with write_transaction(self.engine, announce=False) as connection:
            return read_audit.write_read_audit(connection, entries)

    def prune_read_audit(self, older_than: str) -> int:
        """Delete the read audit entries with `at < older_than`, in chunks: how many."""
        return self._prune(read_audit.prune_read_audit_chunk, older_than)

    def audit_log(
        self,
        domain: str,
        *,
        kind: Literal["read", "write"] | None = None,
        principal: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int,
        cursor: str | None = None,
    ) -> AuditPage:
        """The reads and writes audited in `domain`, newest first, one cursor over both."""
        return self._read(
            read_audit.audit_log,
            domain,
            kind=kind,
            principal=principal,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )

    # -- one transaction per call ------------------------------------------------------------
    def _read(
        self,
        read: Callable[Concatenate[sa.Connection, Params], Answer],
        /,
        *args: Params.args,
        **kwargs: Params.kwargs,
    ) -> Answer:
        """`read(connection, *args, **kwargs)` in a read transaction of its own."""
        with read_transaction(self.engine) as connection:
            return read(connection, *args, **kwargs)

    def _write(
        self,
        write: Callable[Concatenate[sa.Connection, Params], Answer],
        /,
        *args: Params.args,
        **kwargs: Params.kwargs,
    ) -> Answer:
        """`write(connection, *args, **kwargs)` in a write transaction of its own."""
        with write_transaction(self.engine) as connection:
            return write(connection, *args, **kwargs)

    def _prune(
        self, prune_chunk: Callable[[sa.Connection, str], int | None], older_than: str
    ) -> int:
        """Run `prune_chunk` a transaction (not announced) at a time until it finds no more rows
        older than `older_than`: how many it deleted."""
        total = 0
        while True:
            with write_transaction(self.engine, announce=False) as connection:
                deleted = prune_chunk(connection, older_than)
            if deleted is None:
                return total
            total += deleted
