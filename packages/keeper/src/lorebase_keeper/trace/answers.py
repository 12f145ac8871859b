"""What a traced read keeps of its answer: counts (`result_of`) and references (`refs_of`).

Never a value: `result_of` keeps how many items each list of the answer has, the search `mode`
and `corrections`, a context pack's `budget`, whether a cap cut the answer (`truncated`) and
whether there is a next page (`has_more`). `refs_of` keeps the Records (`{"kind", "key"}`) and
Links (`{"relation", "from", "to"}`) the answer names, found by the shapes answers name them in
(keeper/shapes): `{"kind", "key"}` members (query rows, hits, traversal records, a Record), a
`ref` that is `Kind/key` (context seeds, neighbors, recent changes, lineage, history, diff
Records, conflicts; a diff's Link refs name no Kinds and are left out), `{"from", "to"}` Links with their `relation` or under the Relation they are
grouped by (neighborhoods, context packs, Link pages), an explain answer's Links (`relation`,
`direction`, `ref` of the other end) and the `start` of a traversal that exist. Members named
`values` (and the `before` and `after` values of changes, and revision `origin`s) are never
read, so a reference held in a value is not a ref.
"""

from __future__ import annotations

import contextlib

from lorebase_core.schema import KIND_NAME
from lorebase_keeper.shapes.common import JsonObject

COUNTED_SKIPPED = frozenset({"values", "before", "after", "corrected", "corrections"})
"""Lists never counted: values, and corrections (kept apart, and dropped with the search text)."""
NOT_READ = frozenset({"values", "before", "after", "origin", "corrected", "corrections"})
"""Members `refs_of` never reads."""
CUT = ("truncated", "capped")
MAX_DEPTH = 32


def result_of(answer: object, *, keep_corrections: bool) -> JsonObject:
    """Counts and shape flags of a JSON answer (see the module docstring); `{}` for anything
    that is not a JSON object or list (a Markdown answer)."""
    if isinstance(answer, list):
        return {"counts": {"items": len(answer)}}
    if not isinstance(answer, dict):
        return {}
    counts: JsonObject = {}
    for name, member in answer.items():
        if name in COUNTED_SKIPPED:
            continue
        if isinstance(member, list):
            counts[name] = len(member)
        elif (
            name == "links"
            and isinstance(member, dict)
            and all(isinstance(item, list) for item in member.values())
        ):  # Links grouped by Relation (a Record's `links` are counts per Relation: not a list)
            counts[name] = sum(len(item) for item in member.values())
    result: JsonObject = {"counts": counts}
    mode = answer.get("mode")
    if isinstance(mode, str):
        result["mode"] = mode
    corrections = answer.get("corrected", answer.get("corrections"))
    if keep_corrections and isinstance(corrections, list):
        result["corrections"] = [
            {"from": item["from"], "to": item["to"]}
            for item in corrections
            if isinstance(item, dict)
            and isinstance(item.get("from"), str)
            and isinstance(item.get("to"), str)
        ]
    budget = answer.get("budget")
    if isinstance(budget, dict):
        result["budget"] = budget
    cut = [
        member
        for name, member in answer.items()
        if (name in CUT or name.endswith("_truncated")) and isinstance(member, bool)
    ]
    if cut:
        result["truncated"] = any(cut)
    if "next_cursor" in answer:
        result["has_more"] = answer["next_cursor"] is not None
    return result


def refs_of(answer: object, *, max_refs: int) -> list[dict[str, str]]:
    """The Records and Links `answer` touched, deduplicated, in answer order, at most
    `max_refs` (see the module docstring)."""
    found = _Refs(max_refs)
    if max_refs > 0:
        found.walk(answer, relation=None, owner=None, depth=0)
    return found.refs


def record_ref(text: object) -> tuple[str, str] | None:
    """`(Kind, key)` of a `Kind/key` reference, or None for anything else."""
    if not isinstance(text, str):
        return None
    kind, sep, key = text.partition("/")
    if not sep or not key or KIND_NAME.match(kind) is None:
        return None
    return kind, key


class _Full(Exception):
    """`max_refs` reached: the walk stops."""


class _Refs:
    def __init__(self, max_refs: int) -> None:
        self.max_refs = max_refs
        self.refs: list[dict[str, str]] = []
        self.seen: set[tuple[str, ...]] = set()

    def add_record(self, kind: str, key: str) -> None:
        self._add(("record", kind, key), {"kind": kind, "key": key})

    def add_link(self, relation: str, from_ref: str, to_ref: str) -> None:
        self._add(
            ("link", relation, from_ref, to_ref),
            {"relation": relation, "from": from_ref, "to": to_ref},
        )

    def _add(self, identity: tuple[str, ...], ref: dict[str, str]) -> None:
        if identity in self.seen:
            return
        self.seen.add(identity)
        self.refs.append(ref)
        if len(self.refs) >= self.max_refs:
            raise _Full

    def walk(self, node: object, *, relation: str | None, owner: str | None, depth: int) -> None:
        with contextlib.suppress(_Full):
            self._walk(node, relation=relation, owner=owner, depth=depth)

    def _walk(self, node: object, *, relation: str | None, owner: str | None, depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        if isinstance(node, list):
            for item in node:
                self._walk(item, relation=relation, owner=owner, depth=depth + 1)
            return
        if not isinstance(node, dict):
            return
        owner = self._named(node, relation, owner)
        missing = node.get("missing")
        for name, member in node.items():
            if name in NOT_READ or name == "missing":
                continue
            if name == "start" and isinstance(member, list):
                absent = set(missing) if isinstance(missing, list) else set()
                for text in member:
                    ref = record_ref(text) if text not in absent else None
                    if ref is not None:
                        self.add_record(*ref)
                continue
            if name == "links" and isinstance(member, dict):
                for grouped_by, links in member.items():  # Links by the Relation's forward name
                    self._walk(links, relation=str(grouped_by), owner=owner, depth=depth + 1)
                continue
            self._walk(member, relation=None, owner=owner, depth=depth + 1)

    def _named(
        self, node: dict[str, object], relation: str | None, owner: str | None
    ) -> str | None:
        """Add what `node` itself names; the reference it gives the members below it."""
        kind, key = node.get("kind"), node.get("key")
        ref = node.get("ref")
        from_ref, to_ref = node.get("from"), node.get("to")
        named = record_ref(ref)
        if isinstance(kind, str) and isinstance(key, str) and KIND_NAME.match(kind):
            self.add_record(kind, key)
        elif named is not None:  # a diff's Link ref (`relation:from_key->to_key`) is not one
            self.add_record(*named)
        named_relation = node.get("relation")
        link_relation = named_relation if isinstance(named_relation, str) else relation
        if (
            link_relation is not None
            and record_ref(from_ref) is not None
            and record_ref(to_ref) is not None
        ):
            self.add_link(link_relation, str(from_ref), str(to_ref))
        elif (
            isinstance(node.get("relation"), str)
            and node.get("direction") in ("forward", "inverse")
            and named is not None
            and owner is not None
        ):
            # an explain answer's Link: `ref` is the other end of the Record explained
            other = str(ref)
            ends = (owner, other) if node["direction"] == "forward" else (other, owner)
            self.add_link(str(node["relation"]), *ends)
        if named is not None:
            return str(ref)
        if isinstance(kind, str) and isinstance(key, str):
            return f"{kind}/{key}"
        return owner
