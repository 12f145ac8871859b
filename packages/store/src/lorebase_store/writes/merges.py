"""Three-way merges of one branch into another (docs/writes.md).

The merge base is where the two histories meet: the first segment of the target's first-parent
history that the source's history shares, at the lower of the two sequences (a task branch's
fork point). The Records and Links written on each side since then are compared with the base:

- changed on the source only: the source's version is taken;
- changed on both, to the same content: nothing to do;
- changed on both differently: per Attribute, a side that kept the base value yields to the
  other; an Attribute both changed differently is a Conflict (`modified-both`). A Record deleted
  on one side and changed on the other is a Conflict on the whole Record (`deleted-modified`,
  `modified-deleted`), and so is a Link both sides changed differently (`link-modified-both`).

A Conflict with a resolution (`source`, `target`, or `value` with its value) is settled by it.
When none is left open, the merge commits the taken changes on the target as one Revision whose
parents are the target head and the source head; a value brought from the source keeps the
Revision that set it there in its provenance (the row version names the merge Revision).
`fast_forward` names a merge whose target did not change since the base. A write scope given to
a merge (`require_within`) refuses a plan reaching beyond it before anything is written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import sqlalchemy as sa

from lorebase_core.access import ReadScope
from lorebase_core.changes import (
    Change,
    DeleteLink,
    DeleteRecord,
    Origin,
    UpsertLink,
    UpsertRecord,
)
from lorebase_core.errors import BadRequest, BranchesUnrelated, MergeOutsideScope
from lorebase_core.proposal_policy import within_scope
from lorebase_core.schema import Schema
from lorebase_store import tables as t
from lorebase_store.commits.commit import CommitRequest, commit_on
from lorebase_store.reads.diff import touched
from lorebase_store.results import BranchInfo
from lorebase_store.versioned.current import Current, current_links, current_records
from lorebase_store.versioned.provenance import expand
from lorebase_store.versioned.views import (
    Segment,
    ancestry,
    branch_by_id,
    load_domain,
    revision_at,
    segments,
)

MergeResult = Literal["up_to_date", "fast_forward", "merge", "conflicts"]
ConflictResolution = tuple[str, Any]
"""How a Conflict is settled: ("source" | "target" | "value", the value for "value")."""

RESOLUTIONS = ("source", "target", "value")


@dataclass(frozen=True, kw_only=True)
class FoundConflict:
    entity: Literal["record", "link"]
    ref: str
    attribute: str
    """The Attribute in conflict; "" for the whole Record or Link."""
    code: str
    base: Any
    source: Any
    target: Any

    @property
    def identity(self) -> tuple[str, str]:
        return (self.ref, self.attribute)


@dataclass(kw_only=True)
class MergePlan:
    base_revision: str | None
    source_head: str | None
    target_head: str | None
    fast_forward: bool
    changes: list[Change] = field(default_factory=list)
    conflicts: list[FoundConflict] = field(default_factory=list)
    resolved: list[FoundConflict] = field(default_factory=list)
    source_deletions: set[tuple[str, str]] = field(default_factory=set)
    """Records the source deleted: their Links follow the Record's merge, not their own."""

    @property
    def result(self) -> MergeResult:
        if self.conflicts:
            return "conflicts"
        if not self.changes:
            return "up_to_date"
        return "fast_forward" if self.fast_forward else "merge"

    @property
    def counts(self) -> dict[str, int]:
        return dict(sorted(Counter(conflict.code for conflict in self.conflicts).items()))


def require_within(
    schema: Schema, plan: MergePlan, scope: ReadScope | None, source: str, target: str
) -> None:
    """403 `merge-outside-scope` when the plan reaches beyond a write scope (None: no limit).

    A plan reaches the Kinds and Relations of the Records, Links and Conflicts it holds.
    """
    if scope is None:
        return
    kinds: set[str] = set()
    relations: set[str] = set()
    for change in plan.changes:
        if isinstance(change, UpsertRecord | DeleteRecord):
            kinds.add(change.kind)
        else:
            relations.add(change.relation)
    for conflict in (*plan.conflicts, *plan.resolved):
        if conflict.entity == "record":
            kinds.add(conflict.ref.split("/", 1)[0])
        else:
            relations.add(conflict.ref.split(":", 1)[0])
    if within_scope(scope, schema, sorted(kinds), sorted(relations)):
        return
    raise MergeOutsideScope(
        f"Merging {source!r} into {target!r} writes Records or Links your grants on "
        f"{target!r} do not cover; someone whose grants cover them merges it",
        source=source,
        target=target,
    )


def merge_base(
    connection: sa.Connection, source: BranchInfo, target: BranchInfo
) -> tuple[Segment, ...]:
    """The read segments of the merge base of `source` into `target`.

    When the target already merged the source, the base is the source as of the newest such merge
    (the second parent of the target's merge Revision); otherwise where the histories meet.
    """
    merged = _last_merged_seq(connection, source, target)
    if merged is not None:
        return segments(connection, source, merged)
    source_history = {s.branch_id: s.upto for s in ancestry(connection, source, source.head_seq)}
    for segment in ancestry(connection, target, target.head_seq):
        if segment.branch_id in source_history:
            seq = min(segment.upto, source_history[segment.branch_id])
            base_branch = (
                target
                if segment.branch_id == target.id
                else source
                if segment.branch_id == source.id
                else branch_by_id(
                    connection, load_domain(connection, source.domain), segment.branch_id
                )
            )
            return segments(connection, base_branch, seq)
    raise BranchesUnrelated(
        f"Branches {source.name!r} and {target.name!r} share no history to merge from",
        source=source.name,
        target=target.name,
    )


def _last_merged_seq(
    connection: sa.Connection, source: BranchInfo, target: BranchInfo
) -> int | None:
    """The sequence on `source` of its newest Revision that a merge brought into `target`."""
    merges = connection.execute(
        sa.select(t.revisions.c.parents)
        .where(
            t.revisions.c.branch_id == target.id,
            t.revisions.c.origin_type == "merge",
            t.revisions.c.seq <= target.head_seq,
        )
        .order_by(t.revisions.c.seq.desc())
    ).scalars()
    second = [parents[1] for parents in merges if len(parents) > 1]
    if not second:
        return None
    seqs = connection.execute(
        sa.select(t.revisions.c.seq).where(
            t.revisions.c.branch_id == source.id,
            t.revisions.c.id.in_(second),
            t.revisions.c.seq <= source.head_seq,
        )
    ).scalars()
    return max(seqs, default=None)


Chains = tuple[tuple[Segment, ...], tuple[Segment, ...], tuple[Segment, ...]]
"""The read segments of the merge base, the source and the target, in that order."""


def plan_merge(
    connection: sa.Connection,
    schema: Schema,
    source: BranchInfo,
    target: BranchInfo,
    resolutions: Mapping[tuple[str, str], ConflictResolution] | None = None,
) -> MergePlan:
    """What merging `source` into `target` changes, and the Conflicts it meets."""
    resolutions = resolutions or {}
    base_chain = merge_base(connection, source, target)
    base_revision = revision_at(connection, base_chain[0].branch_id, base_chain[0].upto)
    source_chain = segments(connection, source, source.head_seq)
    target_chain = segments(connection, target, target.head_seq)
    source_history = ancestry(connection, source, source.head_seq)
    target_history = ancestry(connection, target, target.head_seq)
    records_s, links_s = touched(connection, source_history, target_history)
    records_t, links_t = touched(connection, target_history, source_history)
    plan = MergePlan(
        base_revision=base_revision,
        source_head=source.head_revision,
        target_head=target.head_revision,
        fast_forward=not records_t and not links_t,
    )
    chains = (base_chain, source_chain, target_chain)
    by_kind: dict[str, set[str]] = {}
    for kind, key in records_s:
        by_kind.setdefault(kind, set()).add(key)
    for kind, keys in sorted(by_kind.items()):
        _plan_records(connection, schema, plan, chains, kind, keys, records_t, resolutions)
    by_relation: dict[str, set[tuple[str, str]]] = {}
    for relation, from_key, to_key in links_s:
        by_relation.setdefault(relation, set()).add((from_key, to_key))
    for relation, pairs in sorted(by_relation.items()):
        _plan_links(connection, schema, plan, chains, relation, pairs, links_t, resolutions)
    return plan


def _plan_records(
    connection: sa.Connection,
    schema: Schema,
    plan: MergePlan,
    chains: Chains,
    kind: str,
    keys: set[str],
    target_touched: set[tuple[str, str]],
    resolutions: Mapping[tuple[str, str], ConflictResolution],
) -> None:
    """Merge the Records of one Kind the source changed."""
    kind_def = schema.kinds.get(kind)
    derived = set(kind_def.derived_attributes) if kind_def is not None else set()
    base, mine, theirs = (current_records(connection, chain, kind, keys) for chain in chains)
    for key in sorted(keys):
        _merge_record(
            plan,
            kind,
            key,
            derived,
            (_live(base.get(key)), _live(mine.get(key)), _live(theirs.get(key))),
            mine.get(key),
            (kind, key) in target_touched,
            resolutions,
        )


def _plan_links(
    connection: sa.Connection,
    schema: Schema,
    plan: MergePlan,
    chains: Chains,
    relation: str,
    pairs: set[tuple[str, str]],
    target_touched: set[tuple[str, str, str]],
    resolutions: Mapping[tuple[str, str], ConflictResolution],
) -> None:
    """Merge the Links of one Relation the source changed (after its Records are merged)."""
    base_l, mine_l, theirs_l = (
        current_links(connection, chain, relation, pairs) for chain in chains
    )
    relation_def = schema.relations.get(relation)
    gone = (
        _gone_ends(connection, plan, chains[2], relation_def.from_kind, relation_def.to_kind, pairs)
        if relation_def is not None
        else set()
    )
    for pair in sorted(pairs):
        sides = (_live(base_l.get(pair)), _live(mine_l.get(pair)), _live(theirs_l.get(pair)))
        if pair in gone and sides[1] is not None:
            _endpoint_deleted(plan, relation, pair, sides, resolutions)
            continue
        if (
            relation_def is not None
            and sides[1] is None
            and (
                (relation_def.from_kind, pair[0]) in plan.source_deletions
                or (relation_def.to_kind, pair[1]) in plan.source_deletions
            )
        ):
            continue  # deleted with its Record: the commit deletes it, a kept Record keeps it
        _merge_link(plan, relation, pair, sides, (relation, *pair) in target_touched, resolutions)


def _endpoint_deleted(
    plan: MergePlan,
    relation: str,
    pair: tuple[str, str],
    sides: tuple[dict[str, Any] | None, dict[str, Any] | None, dict[str, Any] | None],
    resolutions: Mapping[tuple[str, str], ConflictResolution],
) -> None:
    """A Link the source keeps whose Record the target deleted: a Conflict only target settles."""
    ref = f"{relation}:{pair[0]}->{pair[1]}"
    settled = _settle(plan, resolutions, "link", ref, "", "link-endpoint-deleted", sides)
    if settled is not None and settled[0] != "target":
        raise BadRequest(
            f"The Link {ref} points to a Record the target deleted: resolve "
            "it with target (drop the Link), or bring the Record back first",
            ref=ref,
        )


def _gone_ends(
    connection: sa.Connection,
    plan: MergePlan,
    target_chain: tuple[Segment, ...],
    from_kind: str,
    to_kind: str,
    pairs: set[tuple[str, str]],
) -> set[tuple[str, str]]:
    """Links one of whose Records the target deleted (and the merge does not bring back)."""
    brought = {
        (change.kind, change.key)
        for change in plan.changes
        if isinstance(change, UpsertRecord) and change.key is not None
    }
    alive: dict[str, set[str]] = {}
    for kind, keys in ((from_kind, {p[0] for p in pairs}), (to_kind, {p[1] for p in pairs})):
        found = current_records(connection, target_chain, kind, keys)
        alive.setdefault(kind, set()).update(
            key for key, version in found.items() if not version.deleted
        )

    def exists(kind: str, key: str) -> bool:
        return key in alive.get(kind, set()) or (kind, key) in brought

    return {pair for pair in pairs if not (exists(from_kind, pair[0]) and exists(to_kind, pair[1]))}


def _live(version: Current | None) -> dict[str, Any] | None:
    return dict(version.values) if version is not None and not version.deleted else None


def _merge_record(
    plan: MergePlan,
    kind: str,
    key: str,
    derived: set[str],
    sides: tuple[dict[str, Any] | None, dict[str, Any] | None, dict[str, Any] | None],
    source_version: Current | None,
    target_touched: bool,
    resolutions: Mapping[tuple[str, str], ConflictResolution],
) -> None:
    base, mine, theirs = sides
    ref = f"{kind}/{key}"
    if mine is None and base is not None:
        plan.source_deletions.add((kind, key))
    if mine in (base, theirs):
        return
    provenance = (
        expand(source_version.provenance, mine)
        if source_version is not None and mine is not None
        else {}
    )
    take_source = (
        DeleteRecord(kind, key, source=ref)
        if mine is None
        else _upsert(kind, key, mine, derived, provenance, ref)
    )
    if not target_touched or theirs == base:
        plan.changes.append(take_source)
        return
    if mine is None or theirs is None:
        code = "deleted-modified" if mine is None else "modified-deleted"
        settled = _settle(plan, resolutions, "record", ref, "", code, sides)
        if settled is not None and settled[0] == "value":
            raise BadRequest(
                f"The Conflict on {ref} is about the whole Record: resolve it with source or "
                "target",
                ref=ref,
            )
        if settled is not None and settled[0] == "source":
            plan.changes.append(take_source)
        return
    merged, brought = _merge_attributes(
        plan, ref, derived, (base or {}, mine, theirs), provenance, resolutions
    )
    if merged != theirs:
        plan.changes.append(_upsert(kind, key, merged, derived, brought, ref))


def _merge_attributes(
    plan: MergePlan,
    ref: str,
    derived: set[str],
    sides: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
    provenance: Mapping[str, int],
    resolutions: Mapping[tuple[str, str], ConflictResolution],
) -> tuple[dict[str, Any], dict[str, int]]:
    """The target's values with what the source changed, and the provenance brought with them."""
    base, mine, theirs = sides
    merged = dict(theirs)
    brought: dict[str, int] = {}
    for name in sorted((set(mine) | set(theirs) | set(base)) - derived):
        b, s, g = base.get(name), mine.get(name), theirs.get(name)
        if s in (g, b):
            continue
        take: ConflictResolution = ("source", s)
        if g != b:
            settled = _settle(plan, resolutions, "record", ref, name, "modified-both", (b, s, g))
            if settled is None or settled[0] == "target":
                continue
            take = settled
        value = s if take[0] == "source" else take[1]
        if take[0] == "source" and name in provenance:
            brought[name] = provenance[name]
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    return merged, brought


def _upsert(
    kind: str,
    key: str,
    values: Mapping[str, Any],
    derived: set[str],
    provenance: Mapping[str, int],
    ref: str,
) -> UpsertRecord:
    written = {name: value for name, value in values.items() if name not in derived}
    return UpsertRecord(
        kind,
        key,
        written,
        replace=True,
        provenance=dict(provenance),
        source=ref,
    )


def _merge_link(
    plan: MergePlan,
    relation: str,
    pair: tuple[str, str],
    sides: tuple[dict[str, Any] | None, dict[str, Any] | None, dict[str, Any] | None],
    target_touched: bool,
    resolutions: Mapping[tuple[str, str], ConflictResolution],
) -> None:
    base, mine, theirs = sides
    ref = f"{relation}:{pair[0]}->{pair[1]}"
    if mine in (base, theirs):
        return
    if target_touched and theirs != base:
        settled = _settle(plan, resolutions, "link", ref, "", "link-modified-both", sides)
        if settled is None or settled[0] == "target":
            return
        if settled[0] == "value":
            raise BadRequest(
                f"The Conflict on {ref} is about the whole Link: resolve it with source or target",
                ref=ref,
            )
    if mine is None:
        plan.changes.append(DeleteLink(relation, pair[0], pair[1], source=ref))
    else:
        plan.changes.append(UpsertLink(relation, pair[0], pair[1], mine, replace=True, source=ref))


def _settle(
    plan: MergePlan,
    resolutions: Mapping[tuple[str, str], ConflictResolution],
    entity: Literal["record", "link"],
    ref: str,
    attribute: str,
    code: str,
    sides: tuple[Any, Any, Any],
) -> ConflictResolution | None:
    """Meet a Conflict whose (base, source, target) values are `sides`: its resolution, or None
    when it stays open (and is listed)."""
    base, source, target = sides
    found = FoundConflict(
        entity=entity,
        ref=ref,
        attribute=attribute,
        code=code,
        base=base,
        source=source,
        target=target,
    )
    resolution = resolutions.get(found.identity)
    if resolution is None:
        plan.conflicts.append(found)
        return None
    plan.resolved.append(found)
    return resolution


def commit_merge(
    connection: sa.Connection,
    plan: MergePlan,
    *,
    domain: str,
    target: BranchInfo,
    author: str,
    message: str,
    origin_ref: str,
    expected_head: str | None = None,
) -> str | None:
    """Commit a plan with no Conflict open on `target`; returns the target's head after it.

    The Revision has origin `merge` (its ref: the Proposal or the source branch) and the source
    head as its second parent; a plan without changes commits nothing.
    """
    if not plan.changes:
        return target.head_revision
    result = commit_on(
        connection,
        CommitRequest(
            domain=domain,
            branch=target.name,
            author=author,
            message=message,
            origin=Origin("merge", origin_ref),
            expected_head=expected_head,
            merge_parent=plan.source_head,
        ),
        plan.changes,
    )
    return result.revision.id if result.revision is not None else target.head_revision
