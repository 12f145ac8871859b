"""Commit a change set to a branch as one Revision, or nothing at all.

The whole commit runs in one transaction that holds the branch (SQLite's write lock, PostgreSQL's
row locks on the Domain and the branch), so concurrent commits on a branch are serialized and a
failed commit leaves nothing behind. Changes are applied in batches: values are validated and
canonicalized (`lorebase_core.records`), compared with the visible version (an unchanged Record
writes nothing), and written as new row versions that close the previous ones.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice
from typing import Any, Literal

import sqlalchemy as sa

from lorebase_core.changes import Change, DeleteLink, DeleteRecord, Origin, UpsertLink, UpsertRecord
from lorebase_core.errors import Issue, StaleHead, ValuesInvalid
from lorebase_core.records import check_values, derive, key_values, missing_required, record_key
from lorebase_core.schema import KindDef, RelationDef, Schema, canonical_json
from lorebase_core.values import ValueProblem
from lorebase_store import tables as t
from lorebase_store.clock import now_stamp
from lorebase_store.commits.digest import ChangeDigest
from lorebase_store.commits.planner import PlannerStatistics
from lorebase_store.commits.row_writes import RowWrites
from lorebase_store.commits.statistics import StatisticsDelta, apply_delta
from lorebase_store.commits.typed_heads import CommitTypedHeads
from lorebase_store.engine import (
    JsonText,
    canonical_text,
    inserted_id,
    is_sqlite,
    write_transaction,
)
from lorebase_store.feed.notify import insert_event
from lorebase_store.reads.records import duplicate_values
from lorebase_store.results import BranchInfo, CommitResult, DomainInfo, RevisionInfo
from lorebase_store.search.index import RecordWrite, build_index, index_records, reindex_branch
from lorebase_store.search.text import document
from lorebase_store.versioned.current import Current, current_links, current_records, links_touching
from lorebase_store.versioned.domains import insert_domain
from lorebase_store.versioned.provenance import carried
from lorebase_store.versioned.schemas import save_schema, schema_by_digest
from lorebase_store.versioned.views import (
    Head,
    Segment,
    load_commit_target,
    lock_commit_target,
    segments,
)

Duplicates = Literal["merge", "refuse"]

# Statements of every commit, built once so that SQLAlchemy reuses their compiled form.
_LOCK_DOMAIN = (
    sa.select(t.domains.c.id).where(t.domains.c.id == sa.bindparam("id")).with_for_update()
)
_SEAL_REVISION = t.revisions.update().where(t.revisions.c.pk == sa.bindparam("pk_"))
_MOVE_HEAD = t.branches.update().where(t.branches.c.id == sa.bindparam("id_"))


@dataclass(frozen=True, kw_only=True)
class CommitRequest:
    """Who commits what where. `created_at` fixes the time (reproducible examples and tests)."""

    domain: str
    branch: str | None
    author: str
    message: str
    origin: Origin
    expected_head: str | None = None
    created_at: str | None = None
    schema: Schema | None = None
    duplicates: Duplicates = "merge"
    batch_size: int = 1000
    max_issues: int = 1000
    changed_keys_max: int = 100
    create_domain: bool = False
    default_branch: str = "main"
    merge_parent: str | None = None
    """The source head a merge brings in: the Revision's second parent."""


@dataclass
class _Version:
    """A Record version a commit writes: values in canonical form and their provenance."""

    deleted: bool
    values: dict[str, Any]
    provenance: dict[str, int]

    @cached_property
    def text(self) -> JsonText:
        return canonical_text(self.values)

    def row(self, kind_name: str, key: str) -> dict[str, Any]:
        return {
            "kind": kind_name,
            "record_key": key,
            "deleted": self.deleted,
            "values_json": self.text,
            "provenance_json": self.provenance,
        }


@dataclass(kw_only=True)
class _Tally:
    kinds: Counter[str] = field(default_factory=Counter)
    relations: Counter[str] = field(default_factory=Counter)
    records: Counter[str] = field(default_factory=Counter)
    links: Counter[str] = field(default_factory=Counter)
    keys: dict[str, list[str]] = field(default_factory=dict)
    keys_truncated: bool = False


def commit(engine: sa.Engine, request: CommitRequest, changes: Iterable[Change]) -> CommitResult:
    """Apply `changes` to the branch as one Revision; raises `ValuesInvalid` with every issue."""
    with write_transaction(engine) as connection:
        return commit_on(connection, request, changes)


def commit_on(
    connection: sa.Connection, request: CommitRequest, changes: Iterable[Change]
) -> CommitResult:
    """`commit` inside a write transaction the caller holds (and ends)."""
    return _Commit(connection, request).run(changes)


class _Commit:
    def __init__(self, connection: sa.Connection, request: CommitRequest) -> None:
        self.connection = connection
        self.request = request
        self.issues: list[Issue] = []
        self.tally = _Tally()
        self.digest = ChangeDigest()
        self.count = 0
        self.unique_touched: dict[tuple[str, str], set[str]] = {}
        self.planner = PlannerStatistics(connection)
        # a new Domain's search index is built in one pass when its commit ends (`build_index`)
        self.bulk_index = request.create_domain
        self.statistics = StatisticsDelta()

    # -- the steps ---------------------------------------------------------------------------
    def run(self, changes: Iterable[Change]) -> CommitResult:
        connection, request = self.connection, self.request
        if request.create_domain:
            self._insert_domain()
        domain, branch, parent = self._locked_target()
        old_digest = parent.schema_digest if parent else str(domain.settings["initial_schema"])
        self.schema: Schema = request.schema or schema_by_digest(connection, old_digest)
        if request.schema is not None:
            save_schema(connection, request.schema)
        self.branch, self.seq = branch, branch.head_seq + 1
        self.typed_heads = CommitTypedHeads(
            connection,
            domain_id=domain.id,
            branch_id=branch.id,
            on_default_branch=self.on_default_branch,
            schema=self.schema,
            schema_changed=self.schema.digest != old_digest,
            creates_domain=request.create_domain,
        )
        # the new versions have from_seq = self.seq: they shadow the base's rows from there on
        at_head = segments(connection, branch, branch.head_seq)
        self.chain = (Segment(branch.id, self.seq, True), *at_head[1:])
        created_at = request.created_at or now_stamp()
        self.revision_pk = self._insert_pending_revision(domain.id, created_at)
        self._apply_all(changes)
        schema_changed = self.schema.digest != old_digest
        if self.count == 0 and not schema_changed:
            # nothing was written but the pending Revision: the transaction may go on (a new
            # Domain stays, an execution records its invocation)
            connection.execute(t.revisions.delete().where(t.revisions.c.pk == self.revision_pk))
            return CommitResult(None, 0, {})
        return self._finish(domain.id, parent, created_at, schema_changed)

    def _insert_domain(self) -> None:
        request = self.request
        if request.schema is None:
            raise ValuesInvalid(
                "A new Domain needs a schema", [Issue("schema", "required", "missing")]
            )
        insert_domain(
            self.connection,
            request.schema,
            created_by=request.author,
            default_branch=request.default_branch,
            created_at=request.created_at,
        )

    def _locked_target(self) -> tuple[DomainInfo, BranchInfo, Head | None]:
        """The Domain, the branch (locked) and its head, checked against `expected_head`."""
        connection, request = self.connection, self.request
        domain, branch, parent = load_commit_target(connection, request.domain, request.branch)
        self.on_default_branch = branch.name == domain.default_branch
        if not is_sqlite(connection):  # SQLite's write lock is already held: BEGIN IMMEDIATE
            connection.execute(_LOCK_DOMAIN, {"id": domain.id})
            branch, parent = lock_commit_target(connection, domain, branch.id)
        if request.expected_head is not None and request.expected_head != branch.head_revision:
            raise StaleHead(
                f"Branch {branch.name!r} moved: its head is {branch.head_revision}, not {request.expected_head}",
                branch=branch.name,
                head=branch.head_revision,
                expected_head=request.expected_head,
            )
        return domain, branch, parent

    def _insert_pending_revision(self, domain_id: int, created_at: str) -> int:
        """The Revision's row, under a placeholder id until `_finish` knows its digest."""
        request = self.request
        return inserted_id(
            self.connection.execute(
                t.revisions.insert(),
                {
                    "id": f"pending-{uuid.uuid4().hex}",
                    "domain_id": domain_id,
                    "branch_id": self.branch.id,
                    "seq": self.seq,
                    "parents": [],
                    "generation": 0,
                    "stats": {},
                    "origin_type": request.origin.type,
                    "origin_ref": request.origin.ref,
                    "author": request.author,
                    "message": request.message,
                    "created_at": created_at,
                    "schema_digest": self.schema.digest,
                },
            )
        )

    def _apply_all(self, changes: Iterable[Change]) -> None:
        """Apply the changes batch by batch; raises `ValuesInvalid` with the issues found."""
        request = self.request
        for batch in _batches(changes, request.batch_size):
            self._apply_batch(batch)
            if len(self.issues) >= request.max_issues:
                break
        self._check_unique()
        if self.issues:
            shown = self.issues[: request.max_issues]
            raise ValuesInvalid(
                f"The changes were refused: {len(shown)} problem(s); nothing was written", shown
            )

    def _finish(
        self,
        domain_id: int,
        parent: Head | None,
        created_at: str,
        schema_changed: bool,
    ) -> CommitResult:
        parents = [parent.id] if parent else []
        if self.request.merge_parent is not None:
            parents.append(self.request.merge_parent)
        revision = self._seal(parents, parent.generation + 1 if parent else 1, created_at)
        if self.bulk_index:
            build_index(self.connection, self.branch.id, self.schema)
        elif schema_changed:  # what is indexed of each Record depends on its Kind's Attributes
            reindex_branch(self.connection, self.branch.id, self.schema)
        self.typed_heads.finish()
        if self.on_default_branch:
            apply_delta(
                self.connection,
                domain_id,
                parent.id if parent else None,
                revision.id,
                self.statistics,
            )
        sequence = self._insert_committed_event(domain_id, revision, schema_changed)
        return CommitResult(revision, self.count, revision.stats, sequence)

    def _seal(self, parents: list[str], generation: int, created_at: str) -> RevisionInfo:
        """Give the pending Revision its id (the digest of its header and changes), move the head."""
        request, tally = self.request, self.tally
        header = canonical_json(
            {
                "parents": parents,
                "branch": self.branch.name,
                "author": request.author,
                "message": request.message,
                "origin": request.origin.to_json(),
                "created_at": created_at,
                "schema": self.schema.digest,
            }
        )
        revision_id = hashlib.sha256(header.encode() + b"\n" + self.digest.digest()).hexdigest()
        stats = {
            "changes": self.count,
            "records": dict(sorted(tally.records.items())),
            "links": dict(sorted(tally.links.items())),
            "partitions_changed": len(tally.kinds) + len(tally.relations),
        }
        self.connection.execute(
            _SEAL_REVISION,
            {
                "pk_": self.revision_pk,
                "id": revision_id,
                "parents": parents,
                "generation": generation,
                "stats": stats,
            },
        )
        self.connection.execute(
            _MOVE_HEAD, {"id_": self.branch.id, "head_seq": self.seq, "head_revision": revision_id}
        )
        return RevisionInfo(
            pk=self.revision_pk,
            id=revision_id,
            branch=self.branch.name,
            branch_id=self.branch.id,
            seq=self.seq,
            parents=parents,
            generation=generation,
            stats=stats,
            origin_type=request.origin.type,
            origin_ref=request.origin.ref,
            author=request.author,
            message=request.message,
            created_at=created_at,
            schema_digest=self.schema.digest,
        )

    def _insert_committed_event(
        self, domain_id: int, revision: RevisionInfo, schema_changed: bool
    ) -> int:
        """The feed's `revision.committed` event; returns its sequence."""
        request, tally = self.request, self.tally
        payload = {
            "type": "revision.committed",
            "domain": request.domain,
            "branch": self.branch.name,
            "revision": revision.id,
            "parents": revision.parents,
            "generation": revision.generation,
            "author": request.author,
            "message": request.message,
            "origin": request.origin.to_json(),
            "stats": {
                "partitions_changed": revision.stats["partitions_changed"],
                "changes": self.count,
            },
            "created_at": revision.created_at,
            "kinds": dict(sorted(tally.kinds.items())),
            "relations": dict(sorted(tally.relations.items())),
            "schema_changed": schema_changed,
            "keys": {kind: sorted(keys) for kind, keys in sorted(tally.keys.items()) if keys},
            "keys_truncated": tally.keys_truncated,
        }
        return insert_event(
            self.connection,
            {
                "domain_id": domain_id,
                "branch_id": self.branch.id,
                "type": "revision.committed",
                "revision_id": revision.id,
                "created_at": revision.created_at,
                "payload": payload,
            },
        )

    # -- batches -----------------------------------------------------------------------------
    def _apply_batch(self, batch: list[Change]) -> None:
        record_changes: dict[str, list[UpsertRecord | DeleteRecord]] = {}
        link_changes: dict[str, list[UpsertLink | DeleteLink]] = {}
        for change in batch:
            if isinstance(change, UpsertRecord | DeleteRecord):
                record_changes.setdefault(change.kind, []).append(change)
            else:
                link_changes.setdefault(change.relation, []).append(change)
        for kind, kind_changes in record_changes.items():
            self._apply_records(kind, kind_changes)
        for relation, relation_changes in link_changes.items():
            self._apply_links(relation, relation_changes)

    def _issue(self, source: str, attribute: str, message: str, code: str) -> None:
        path = f"{source} {attribute}".strip() if attribute else source
        self.issues.append(Issue(path, message, code))

    def _records_now(self, kind_name: str, keys: Iterable[str]) -> dict[str, Current]:
        """The visible versions of these Records, this commit's writes included."""
        return current_records(self.connection, self.chain, kind_name, keys)

    def _links_now(
        self, relation_name: str, pairs: Iterable[tuple[str, str]]
    ) -> dict[tuple[str, str], Current]:
        return current_links(self.connection, self.chain, relation_name, pairs)

    def _apply_records(self, kind_name: str, changes: list[UpsertRecord | DeleteRecord]) -> None:
        kind = self.schema.kinds.get(kind_name)
        if kind is None:
            for change in changes:
                self._issue(change.source, "", f"Kind {kind_name!r} does not exist", "kind.unknown")
            return
        keyed = [
            resolved
            for change in changes
            if (resolved := self._resolve_record(kind_name, change)) is not None
        ]
        current = self._records_now(kind_name, [key for key, _, _ in keyed])
        writes = RowWrites(t.records, self.branch.id, self.seq, self.revision_pk)
        deleted: list[tuple[str, str]] = []
        indexed: list[RecordWrite] = []
        documented: list[RecordWrite] = []  # the writes whose search document changes
        for key, change, values in keyed:
            before = current.get(key)
            if isinstance(change, DeleteRecord):
                written = self._delete_record(kind_name, key, change, before)
                if written is not None:
                    deleted.append((key, change.source))
            else:
                written = self._upsert_record(kind, kind_name, key, change, values, before)
            if written is None:
                continue
            writes.put((key,), before, written.row(kind_name, key))
            indexed.append((key, written.deleted, written.values))
            if not self.bulk_index and not _same_text(kind, key, before, written):
                documented.append((key, written.deleted, written.values))
            if self.on_default_branch:
                self.statistics.record_changed(
                    kind_name,
                    before.values if before is not None and not before.deleted else None,
                    None if written.deleted else written.values,
                )
            current[key] = self._own_version(written.deleted, written.values, written.provenance)
        self.planner.wrote(t.records, writes.flush(self.connection))
        index_records(self.connection, self.branch.id, self.schema, kind_name, documented)
        self.typed_heads.write(kind_name, indexed)
        self.planner.wrote(t.search_documents, len(documented))
        for key, source in deleted:
            self._delete_links_of(kind_name, key, source)

    def _delete_record(
        self, kind_name: str, key: str, change: DeleteRecord, before: Current | None
    ) -> _Version | None:
        if before is None or before.deleted:
            self._issue(change.source, "", f"{kind_name} {key!r} does not exist", "record.missing")
            return None
        again = before.own and before.from_seq == self.seq
        self._write_record(
            kind_name, key, "deleted", again, {"op": "delete_record", "kind": kind_name, "key": key}
        )
        return _Version(True, {}, {})

    def _upsert_record(
        self,
        kind: KindDef,
        kind_name: str,
        key: str,
        change: UpsertRecord,
        values: dict[str, Any],
        before: Current | None,
    ) -> _Version | None:
        """The new version of an upserted Record, or None when it is refused or changes nothing."""
        again = before is not None and before.own and before.from_seq == self.seq
        if again and self.request.duplicates == "refuse":
            self._issue(
                change.source, "", f"{kind_name} {key!r} appears more than once", "record.duplicate"
            )
            return None
        alive = before is not None and not before.deleted
        if change.must_exist and not alive:
            self._issue(change.source, "", f"{kind_name} {key!r} does not exist", "record.missing")
            return None
        old_values = before.values if before is not None and alive else {}
        merged = {**({} if change.replace else old_values), **values}
        merged = {name: value for name, value in merged.items() if value is not None}
        missing = missing_required(kind.attributes, merged, kind.key)
        for issue in missing:
            self._issue(change.source, issue.path, issue.message, issue.code)
        if missing:
            return None
        merged = derive(kind, merged)
        if alive and old_values == merged:
            return None
        old_provenance = before.provenance if before is not None and alive else {}
        version = _Version(
            False,
            merged,
            carried(old_provenance, old_values, merged, self.revision_pk, change.provenance),
        )
        self._write_record(
            kind_name,
            key,
            "updated" if alive else "created",
            again,
            {"op": "upsert_record", "kind": kind_name, "key": key, "values": version.text},
        )
        for name, attribute in kind.attributes.items():
            value = merged.get(name)
            # a value the Record already held passed its check then: only new values are checked
            if attribute.unique and value is not None and old_values.get(name) != value:
                self.unique_touched.setdefault((kind_name, name), set()).add(str(value))
        return version

    def _write_record(
        self, kind_name: str, key: str, change: str, again: bool, hashed: dict[str, Any]
    ) -> None:
        """Count a Record change once per commit, however often the commit changes it."""
        self.digest.add(hashed)
        if again:
            return
        self.count += 1
        self.tally.kinds[kind_name] += 1
        self.tally.records[change] += 1
        if sum(len(keys) for keys in self.tally.keys.values()) < self.request.changed_keys_max:
            self.tally.keys.setdefault(kind_name, []).append(key)
        else:
            self.tally.keys_truncated = True

    def _delete_links_of(self, kind_name: str, key: str, source: str) -> None:
        """A deleted Record takes its Links with it, in the same Revision."""
        for relation_name, relation in self.schema.relations.items():
            for column, kind_of_end in (
                ("from_key", relation.from_kind),
                ("to_key", relation.to_kind),
            ):
                if kind_of_end != kind_name:
                    continue
                pairs = links_touching(self.connection, self.chain, relation_name, column, [key])
                if pairs:
                    self._apply_links(
                        relation_name,
                        [DeleteLink(relation_name, f, to, source=source) for f, to in pairs],
                    )

    def _resolve_record(
        self, kind_name: str, change: UpsertRecord | DeleteRecord
    ) -> tuple[str, UpsertRecord | DeleteRecord, dict[str, Any]] | None:
        kind = self.schema.kinds[kind_name]
        if isinstance(change, DeleteRecord):
            return change.key, change, {}
        checked = check_values(
            kind.attributes, change.values, from_text=change.from_text, partial=True
        )
        for issue in checked.issues:
            self._issue(change.source, issue.path, issue.message, issue.code)
        if checked.issues:
            return None
        values: dict[str, Any] = dict(checked.values)
        for name, raw in change.values.items():
            if raw is None or (change.from_text and raw == ""):
                values[name] = None
        key = change.key
        if key is None:
            key = record_key(kind, values)
            if key is None:
                self._issue(
                    change.source, ",".join(kind.key), "the key needs a value", "value.required"
                )
                return None
        else:
            try:
                named = key_values(self.schema, kind_name, key)
            except (ValueProblem, ValueError) as exc:
                self._issue(
                    change.source,
                    "key",
                    f"{key!r} is not a key of {kind_name}: {exc}",
                    "key.invalid",
                )
                return None
            for name, value in named.items():
                if values.get(name) is not None and values[name] != value:
                    self._issue(
                        change.source,
                        name,
                        f"{values[name]!r} differs from the key {key!r}",
                        "key.mismatch",
                    )
                    return None
                values[name] = value
            key = record_key(kind, values) or key
        return key, change, values

    def _apply_links(self, relation_name: str, changes: list[UpsertLink | DeleteLink]) -> None:
        relation = self.schema.relations.get(relation_name)
        if relation is None:
            for change in changes:
                self._issue(
                    change.source,
                    "",
                    f"Relation {relation_name!r} does not exist",
                    "relation.unknown",
                )
            return
        live = self._live_endpoints(relation, changes)
        current = self._links_now(relation_name, [(c.from_key, c.to_key) for c in changes])
        writes = RowWrites(t.links, self.branch.id, self.seq, self.revision_pk)
        touched_from: set[str] = set()
        touched_to: set[str] = set()
        for change in changes:
            pair = (change.from_key, change.to_key)
            before = current.get(pair)
            if isinstance(change, DeleteLink):
                values = self._link_deletion(relation_name, change, before)
            else:
                values = self._link_values(relation, change, before, live)
            if values is None:
                continue
            deleted = isinstance(change, DeleteLink)
            if not deleted:
                touched_from.add(change.from_key)
                touched_to.add(change.to_key)
            current[pair] = self._write_link(writes, relation_name, pair, before, values, deleted)
        self.planner.wrote(t.links, writes.flush(self.connection))
        self._check_cardinality(
            relation_name, relation.cardinality, touched_from, touched_to, changes
        )

    def _live_endpoints(
        self, relation: RelationDef, changes: list[UpsertLink | DeleteLink]
    ) -> dict[str, set[str]]:
        """Per Kind at an end of the Relation, the upserted Links' ends that are live Records."""
        endpoints: dict[str, set[str]] = {relation.from_kind: set(), relation.to_kind: set()}
        for change in changes:
            if isinstance(change, UpsertLink):
                endpoints[relation.from_kind].add(change.from_key)
                endpoints[relation.to_kind].add(change.to_key)
        return {
            kind: {key for key, found in self._records_now(kind, keys).items() if not found.deleted}
            for kind, keys in endpoints.items()
            if keys
        }

    def _link_deletion(
        self, relation_name: str, change: DeleteLink, before: Current | None
    ) -> dict[str, Any] | None:
        """The values of a deleted Link (none), or None when there is no such Link."""
        if before is None or before.deleted:
            self._issue(
                change.source,
                "",
                f"{relation_name} link {change.from_key!r} -> {change.to_key!r} does not exist",
                "link.missing",
            )
            return None
        return {}

    def _write_link(
        self,
        writes: RowWrites,
        relation_name: str,
        pair: tuple[str, str],
        before: Current | None,
        values: dict[str, Any],
        deleted: bool,
    ) -> Current:
        """Count, hash and queue one Link version; returns it as the commit now sees it."""
        created = before is None or before.deleted
        if not (before is not None and before.own and before.from_seq == self.seq):
            self.count += 1
            self.tally.relations[relation_name] += 1
            self.tally.links["deleted" if deleted else "created" if created else "updated"] += 1
        self.digest.add(
            {
                "op": "delete_link" if deleted else "upsert_link",
                "relation": relation_name,
                "from": pair[0],
                "to": pair[1],
                "values": values,
            }
        )
        writes.put(
            pair,
            before,
            {
                "relation": relation_name,
                "from_key": pair[0],
                "to_key": pair[1],
                "deleted": deleted,
                "values_json": values,
                "provenance_json": {},
            },
        )
        return self._own_version(deleted, values, {})

    def _own_version(
        self, deleted: bool, values: dict[str, Any], provenance: dict[str, int]
    ) -> Current:
        """A version this commit wrote, as later look-ups of the same commit see it."""
        return Current(
            row_id=-1,
            own=True,
            from_seq=self.seq,
            deleted=deleted,
            values=values,
            provenance=provenance,
        )

    def _link_values(
        self,
        relation: RelationDef,
        change: UpsertLink,
        before: Current | None,
        live: dict[str, set[str]],
    ) -> dict[str, Any] | None:
        """The new values of an upserted Link, or None when it is refused or changes nothing."""
        problem = False
        for end, kind, key in (
            ("from", relation.from_kind, change.from_key),
            ("to", relation.to_kind, change.to_key),
        ):
            if key not in live.get(kind, set()):
                self._issue(change.source, end, f"{kind} {key!r} does not exist", "link.endpoint")
                problem = True
        checked = check_values(
            relation.attributes, change.values, from_text=change.from_text, partial=True
        )
        for issue in checked.issues:
            self._issue(change.source, issue.path, issue.message, issue.code)
        if problem or checked.issues:
            return None
        alive = before is not None and not before.deleted
        values = dict(before.values) if before is not None and alive and not change.replace else {}
        values.update(checked.values)
        for name, raw in change.values.items():
            if raw is None or (change.from_text and raw == ""):
                values.pop(name, None)
        missing = missing_required(relation.attributes, values)
        for issue in missing:
            self._issue(change.source, issue.path, issue.message, issue.code)
        if missing or (before is not None and alive and before.values == values):
            return None
        return values

    def _check_cardinality(
        self,
        relation_name: str,
        cardinality: str,
        touched_from: set[str],
        touched_to: set[str],
        changes: list[UpsertLink | DeleteLink],
    ) -> None:
        sources = {(c.from_key, c.to_key): c.source for c in changes}
        limits = []
        if cardinality in {"many_to_one", "one_to_one"}:
            limits.append(("from_key", touched_from, "from"))
        if cardinality in {"one_to_many", "one_to_one"}:
            limits.append(("to_key", touched_to, "to"))
        for column, keys, end in limits:
            if not keys:
                continue
            pairs = links_touching(self.connection, self.chain, relation_name, column, sorted(keys))
            per_key = Counter(pair[0] if column == "from_key" else pair[1] for pair in pairs)
            for key, count in sorted(per_key.items()):
                if count > 1:
                    offending = [
                        p for p in pairs if (p[0] if column == "from_key" else p[1]) == key
                    ]
                    source = next((sources[p] for p in offending if p in sources), "")
                    self._issue(
                        source,
                        end,
                        f"{relation_name} is {cardinality}: {key!r} would have {count} Links",
                        "link.cardinality",
                    )

    def _check_unique(self) -> None:
        for (kind_name, attribute), values in sorted(self.unique_touched.items()):
            for value, keys in duplicate_values(
                self.connection, self.chain, kind_name, attribute, values
            ):
                self._issue(
                    f"{kind_name} {', '.join(keys)}",
                    attribute,
                    f"{value!r} is not unique: {', '.join(keys)} share it",
                    "value.unique",
                )


def _same_text(kind: KindDef, key: str, before: Current | None, written: _Version) -> bool:
    """Whether a Record's search document stays as it is: the branch's own live version is
    replaced by a live one with the same indexed text."""
    if before is None or not before.own or before.deleted or written.deleted:
        return False
    return document(kind, key, before.values) == document(kind, key, written.values)


def _batches(changes: Iterable[Change], size: int) -> Iterator[list[Change]]:
    iterator = iter(changes)
    while batch := list(islice(iterator, size)):
        yield batch
