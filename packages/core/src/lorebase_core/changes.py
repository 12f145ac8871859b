"""Change sets: what one commit does to Records and Links, and where it came from.

A change names a Record by Kind and key string, or a Link by Relation and the key strings of its
two Records. Values are raw here; the store validates them against the schema when it commits.
`upsert_record` with `replace=False` is a patch (only the given Attributes change, `None` clears
one); `replace=True` makes the given values the whole Record (imports). `must_exist=True` refuses the
change when the Record does not exist (an Operation's `update_record`). `provenance` names, per
Attribute, the Revision (pk) whose value a merge brings over, so the value keeps its origin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from lorebase_core.errors import Issue, ValuesInvalid
from lorebase_core.members import single_member

OriginType = Literal["import", "operation", "merge", "extraction", "source_sync"]
ORIGIN_TYPES: tuple[OriginType, ...] = ("import", "operation", "merge", "extraction", "source_sync")


@dataclass(frozen=True)
class Origin:
    """Where a Revision came from: its type and a reference (an invocation, a path, a Source)."""

    type: OriginType
    ref: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"type": self.type, "ref": self.ref}


@dataclass(frozen=True)
class UpsertRecord:
    kind: str
    key: str | None
    values: Mapping[str, object] = field(default_factory=dict)
    replace: bool = False
    from_text: bool = False
    source: str = ""
    must_exist: bool = False
    provenance: Mapping[str, int] | None = None


@dataclass(frozen=True)
class DeleteRecord:
    kind: str
    key: str
    source: str = ""


@dataclass(frozen=True)
class UpsertLink:
    relation: str
    from_key: str
    to_key: str
    values: Mapping[str, object] = field(default_factory=dict)
    replace: bool = False
    from_text: bool = False
    source: str = ""


@dataclass(frozen=True)
class DeleteLink:
    relation: str
    from_key: str
    to_key: str
    source: str = ""


Change: TypeAlias = UpsertRecord | DeleteRecord | UpsertLink | DeleteLink
_CHANGE_MEMBERS = {
    "upsert_record": {"kind", "key", "values"},
    "delete_record": {"kind", "key"},
    "upsert_link": {"relation", "from", "to", "values"},
    "delete_link": {"relation", "from", "to"},
}


def parse_changes(raw: object, path: str = "changes") -> list[Change]:
    """Change documents (`[{upsert_record: {kind, key, values}}, ...]`) as changes; all problems at once."""
    if not isinstance(raw, list):
        raise ValuesInvalid("Changes must be a list", [Issue(path, "expected a list of changes")])
    changes: list[Change] = []
    issues: list[Issue] = []
    for index, item in enumerate(raw):
        item_path = f"{path}.{index}"
        entry = single_member(item, item_path, _CHANGE_MEMBERS, "a change", issues)
        if entry is None:
            continue
        op, body = entry
        problems = [
            Issue(f"{item_path}.{op}.{member}", "unknown member")
            for member in sorted(set(body) - _CHANGE_MEMBERS[op])
        ]
        required = _CHANGE_MEMBERS[op] - {"values"}
        problems += [
            Issue(f"{item_path}.{op}.{member}", "required", "missing")
            for member in sorted(required - set(body))
        ]
        values = body.get("values", {})
        if not isinstance(values, dict):
            problems.append(
                Issue(f"{item_path}.{op}.values", "expected a mapping of Attribute names to values")
            )
        if problems:
            issues.extend(problems)
            continue
        changes.append(_change(op, body, values, item_path))
    if issues:
        raise ValuesInvalid(f"{len(issues)} problem(s) in the changes", issues)
    return changes


def _change(op: str, body: dict[str, object], values: dict[str, object], source: str) -> Change:
    if op == "upsert_record":
        return UpsertRecord(str(body["kind"]), str(body["key"]), values, source=source)
    if op == "delete_record":
        return DeleteRecord(str(body["kind"]), str(body["key"]), source=source)
    if op == "upsert_link":
        return UpsertLink(
            str(body["relation"]), str(body["from"]), str(body["to"]), values, source=source
        )
    return DeleteLink(str(body["relation"]), str(body["from"]), str(body["to"]), source=source)
