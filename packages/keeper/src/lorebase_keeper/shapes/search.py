"""POST /search and PUT .../vector: requests and answers."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from lorebase_keeper.shapes.common import Shape, Stamped, Values


class SearchRequest(Shape):
    q: str = ""
    kinds: list[str] | None = None
    traits: list[str] | None = None
    lens: str | None = None
    mode: Literal["lexical", "semantic", "hybrid"] | None = None
    query_vector: list[float] | None = None
    limit: int | None = None
    values: bool | None = None
    branch: str | None = None
    at: str | None = Field(default=None, description="Refused: search reads the branch head.")


class Correction(Shape):
    from_: str = Field(alias="from")
    to: str


class Hit(Shape):
    ref: str
    kind: str
    key: str
    title: str
    score: float
    matched: list[str]
    values: Values | None = None


class SearchAnswer(Stamped):
    q: str
    mode: Literal["lexical", "semantic", "hybrid"]
    kinds: list[str]
    corrected: list[Correction] | None = Field(default=None, description="Not for semantic.")
    hits: list[Hit]
    capped: bool | None = Field(default=None, description="Not for lexical.")


class VectorRequest(Shape):
    model: str = Field(description="The schema's search.embedding model.")
    vector: list[float]


class VectorStored(Shape):
    domain: str
    kind: str
    key: str
    model: str
    dimensions: int
    vector: list[float]
    updated_at: str
    updated_by: str
