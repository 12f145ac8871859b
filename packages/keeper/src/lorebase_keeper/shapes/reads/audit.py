"""GET /domains/{domain}/audit: the read audit and the write audit of a Domain (docs/trace.md)."""

from __future__ import annotations

from typing import Literal, TypedDict

from pydantic import Field

from lorebase_keeper.shapes.common import JsonObject, Shape


class ReadAuditItem(Shape):
    """A read of the Domain (keeper.auth.audit.reads)."""

    kind: Literal["read"]
    id: str = Field(description="read-<n>.")
    principal: str
    at: str
    route: str = Field(description="The route template read.")
    branch: str | None
    revision: str | None
    refs: list[dict[str, object]] = Field(description="Records and Links the answer named.")
    status: int


class WriteAuditItem(Shape):
    """A step of a write (executions, Proposals, reviews, merges): never values."""

    kind: Literal["write"]
    id: str = Field(description="write-<n>.")
    principal: str
    at: str
    action: str
    target: str
    details: dict[str, object]


class AuditPageAnswer(Shape):
    domain: str
    entries: list[ReadAuditItem | WriteAuditItem] = Field(description="Newest first.")
    next_cursor: str | None


class AuditPageAnswerJson(TypedDict):
    domain: str
    entries: list[JsonObject]  # `ReadAuditItem`s and `WriteAuditItem`s, as the store gives them
    next_cursor: str | None
