"""Revisions, branches and tags: GET /diff, /branches, /tags; POST /branches, branch merges."""

from __future__ import annotations

from typing import TypedDict

from pydantic import Field

from lorebase_keeper.shapes.common import JsonObject, Origin, Shape, Values


class DiffEntry(Shape):
    ref: str = Field(description="Kind/key of a Record, relation:from->to of a Link.")
    change: str
    attributes: list[str]
    before: Values | None
    after: Values | None


class DiffAnswer(Shape):
    domain: str
    revision: str
    from_: str = Field(alias="from")
    to: str
    records: list[DiffEntry]
    links: list[DiffEntry]


DiffAnswerJson = TypedDict(
    "DiffAnswerJson",
    {
        "domain": str,
        "revision": str,
        "from": str,
        "to": str,
        "records": list[JsonObject],
        "links": list[JsonObject],
    },
)


class Branch(Shape):
    name: str
    mode: str = Field(description="overlay or copy.")
    head: str | None
    base_branch: str | None
    base_revision: str | None
    protected: bool
    created_at: str
    created_by: str


class BranchCreated(Branch):
    """POST /branches."""

    domain: str


class BranchAnswer(BranchCreated):
    """GET /branches/{branch}."""

    revision: str | None


class BranchesAnswer(Shape):
    domain: str
    branches: list[Branch]


class BranchesAnswerJson(TypedDict):
    domain: str
    branches: list[JsonObject]  # `Branch`es, as the store gives them


class TagEntry(Shape):
    name: str
    revision: str


class TagEntryJson(TypedDict):
    name: str
    revision: str


class TagsAnswer(Shape):
    domain: str
    tags: list[TagEntry]


class TagsAnswerJson(TypedDict):
    domain: str
    tags: list[TagEntryJson]


class TagAnswer(Shape):
    """GET /tags/{tag}: the tag and its Revision."""

    domain: str
    name: str
    revision: str
    id: str
    branch: str
    parents: list[str]
    generation: int
    stats: dict[str, object]
    origin: Origin
    author: str
    message: str
    created_at: str
    schema_digest: str


class BranchMerged(Shape):
    """POST /branches/{branch}/merge."""

    domain: str
    source: str
    target: str
    result: str
    revision: str | None
    base_revision: str | None
    source_head: str | None
    changes: int
    resolved_conflicts: int
