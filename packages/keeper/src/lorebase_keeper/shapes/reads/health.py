"""The health of the data (GET /health, /kinds/{kind}/health) and of Keeper (the probes)."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from pydantic import Field

from lorebase_keeper.shapes.common import Shape, Stamped, StampedJson


class HealthSummary(Shape):
    ok: bool
    kinds: int
    records: int
    links: int
    invalid_records: int
    orphan_links: int
    required_gaps: int
    duplicate_groups: int
    unique_duplicate_groups: int
    kinds_with_stale_derived: int


class HealthSummaryJson(TypedDict):
    ok: bool
    kinds: int
    records: int
    links: int
    invalid_records: int
    orphan_links: int
    required_gaps: int
    duplicate_groups: int
    unique_duplicate_groups: int
    kinds_with_stale_derived: int


class Violation(Shape):
    rule: str
    attribute: str
    count: int
    examples: list[str]


class ViolationJson(TypedDict):
    rule: str
    attribute: str
    count: int
    examples: list[str]


class DuplicateGroup(Shape):
    keys: list[str]
    count: int
    value: str | None = Field(default=None, description="Left out for sensitive Attributes.")


class DuplicateGroupJson(TypedDict):
    keys: list[str]
    count: int
    value: NotRequired[str | None]


class Duplicates(Shape):
    attribute: str
    unique: bool
    title: bool
    sensitive: bool
    group_count: int
    groups: list[DuplicateGroup]


class DuplicatesJson(TypedDict):
    attribute: str
    unique: bool
    title: bool
    sensitive: bool
    group_count: int
    groups: list[DuplicateGroupJson]


class StaleDerived(Shape):
    stale: dict[str, int]


class StaleDerivedJson(TypedDict):
    stale: dict[str, int]


class KindHealth(Shape):
    kind: str
    records: int
    last_change: str | None
    checked: int
    sampled: bool
    invalid: int
    violations: list[Violation]
    duplicates: list[Duplicates]
    derived: StaleDerived


class KindHealthJson(TypedDict):
    kind: str
    records: int
    last_change: str | None
    checked: int
    sampled: bool
    invalid: int
    violations: list[ViolationJson]
    duplicates: list[DuplicatesJson]
    derived: StaleDerivedJson


class LinkEnds(Shape):
    from_: str = Field(alias="from")
    to: str


LinkEndsJson = TypedDict("LinkEndsJson", {"from": str, "to": str})


class RelationHealth(Shape):
    relation: str
    from_: str = Field(alias="from")
    to: str
    links: int
    orphans: int
    orphan_examples: list[LinkEnds]
    required_from: bool
    gaps: int | None
    gap_examples: list[str]


RelationHealthJson = TypedDict(
    "RelationHealthJson",
    {
        "relation": str,
        "from": str,
        "to": str,
        "links": int,
        "orphans": int,
        "orphan_examples": list[LinkEndsJson],
        "required_from": bool,
        "gaps": int | None,
        "gap_examples": list[str],
    },
)


class HealthAnswer(Stamped):
    """GET /health and /kinds/{kind}/health (format=json)."""

    kind: str | None = Field(default=None, description="The Kind of /kinds/{kind}/health.")
    summary: HealthSummary
    kinds: list[KindHealth]
    relations: list[RelationHealth]


class HealthSubject(TypedDict, total=False):
    kind: str  # the Kind of /kinds/{kind}/health


class HealthAnswerJson(StampedJson, HealthSubject):
    summary: HealthSummaryJson
    kinds: list[KindHealthJson]
    relations: list[RelationHealthJson]


class Alive(Shape):
    """GET /healthz."""

    status: str


class Ready(Shape):
    """GET /readyz."""

    status: str = Field(description="ready, or unavailable (503).")
    database: str = Field(description="sqlite or postgresql.")
