"""Who is calling: GET /auth/whoami and GET /domains."""

from __future__ import annotations

from typing import TypedDict

from pydantic import Field

from lorebase_keeper.shapes.common import Shape


class GrantEntry(Shape):
    domain: str
    branch: str | None
    role: str
    kinds: list[str] | None = Field(description="null: every Kind.")
    clearances: list[str]
    permissions: list[str]


class Whoami(Shape):
    principal: str
    type: str
    authenticated_by: str
    grants: list[GrantEntry]


class DomainEntry(Shape):
    name: str
    default_branch: str
    created_at: str


class DomainsAnswer(Shape):
    domains: list[DomainEntry]


class GrantEntryJson(TypedDict):
    domain: str
    branch: str | None
    role: str
    kinds: list[str] | None
    clearances: list[str]
    permissions: list[str]


class WhoamiJson(TypedDict):
    principal: str
    type: str
    authenticated_by: str
    grants: list[GrantEntryJson]


class DomainEntryJson(TypedDict):
    name: str
    default_branch: str
    created_at: str


class DomainsAnswerJson(TypedDict):
    domains: list[DomainEntryJson]
