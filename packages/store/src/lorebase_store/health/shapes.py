"""What a health report holds (`lorebase_store.health.report` builds it): Kinds, Relations, limits.

Both `report` and `relations` import these; neither imports the other for its types.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HealthLimits:
    """The caps of a report (settings `read.health`)."""

    max_records_validated: int = 10000
    max_examples: int = 5
    max_duplicate_groups: int = 50
    max_orphans: int = 50
    statement_timeout_s: float = 30.0


@dataclass(frozen=True)
class Violation:
    """Records breaking one rule on one Attribute: how many, and the first keys in key order."""

    rule: str
    attribute: str
    count: int
    examples: tuple[str, ...]


@dataclass(frozen=True)
class DuplicateGroup:
    """Records whose value is equal once case and spacing are ignored.

    `keys` are the first ones in key order (at most `max_examples`), `count` all of them, and
    `value` the first Record's value (None for an Attribute with sensitivity tags).
    """

    keys: tuple[str, ...]
    count: int
    value: str | None


@dataclass(frozen=True, kw_only=True)
class Duplicates:
    """The duplicate groups of one unique or title Attribute (at most `max_duplicate_groups`)."""

    attribute: str
    unique: bool
    title: bool
    sensitive: bool
    group_count: int
    groups: tuple[DuplicateGroup, ...]


@dataclass(frozen=True, kw_only=True)
class KindHealth:
    kind: str
    records: int
    last_change: str | None
    checked: int
    sampled: bool
    invalid: int
    violations: tuple[Violation, ...]
    duplicates: tuple[Duplicates, ...]
    stale_derived: dict[str, int]

    @property
    def unique_duplicate_groups(self) -> int:
        return sum(found.group_count for found in self.duplicates if found.unique)

    @property
    def duplicate_groups(self) -> int:
        return sum(found.group_count for found in self.duplicates)


@dataclass(frozen=True, kw_only=True)
class RelationHealth:
    relation: str
    from_kind: str
    to_kind: str
    links: int
    orphans: int
    orphan_examples: tuple[tuple[str, str], ...]
    gaps: int | None
    """Records of the from Kind without a Link (None unless the Relation has `required_from`)."""
    gap_examples: tuple[str, ...]


@dataclass(frozen=True)
class HealthReport:
    kinds: tuple[KindHealth, ...]
    relations: tuple[RelationHealth, ...]
