"""Following a branch: GET /branches/{branch}/changes and the events of /branches/{branch}/events."""

from __future__ import annotations

from typing import TypedDict

from pydantic import ConfigDict, Field

from lorebase_keeper.shapes.common import JsonObject, Origin, Shape


class RevisionEvent(Shape):
    """A `revision.committed` event: one Revision committed on the branch."""

    sequence: int = Field(description="The event's sequence: the stream's `id:`.")
    type: str = Field(description="revision.committed")
    domain: str
    branch: str
    revision: str
    parents: list[str]
    generation: int
    author: str
    message: str
    origin: Origin
    stats: dict[str, int] = Field(description="partitions_changed and changes.")
    created_at: str
    kinds: dict[str, int] = Field(description="Records changed per Kind.")
    relations: dict[str, int] = Field(description="Links changed per Relation.")
    schema_changed: bool
    keys: dict[str, list[str]] = Field(
        description="Changed Record keys per Kind, at most agents.feed.changed_keys_max."
    )
    keys_truncated: bool


class OperationEvent(Shape):
    """An `operation.<side effect>` event of a committed Operation execution (on the stream)."""

    model_config = ConfigDict(extra="allow")

    sequence: int
    type: str = Field(description="operation.<side effect>")
    side_effect: str
    domain: str
    branch: str
    operation: str
    operation_id: str
    invocation_id: str
    principal: str
    revisions: list[str]
    head: str
    parameters: dict[str, object]
    edit_count: int
    edits: list[dict[str, object]] = Field(description="Values the reader may not read are ***.")
    edits_truncated: bool


class ChangesAnswer(Shape):
    """GET /branches/{branch}/changes: revision events after `since`, oldest first."""

    domain: str
    branch: str
    revision: str | None = Field(description="The head the page was read at.")
    events: list[RevisionEvent]
    next_since: str | None = Field(description="Pass it as `since` to continue.")
    more: bool = Field(description="The page was cut: ask again with next_since at once.")


class ChangesAnswerJson(TypedDict):
    domain: str
    branch: str
    revision: str | None
    events: list[JsonObject]  # `RevisionEvent`s, as the store gives them
    next_since: str | None
    more: bool
