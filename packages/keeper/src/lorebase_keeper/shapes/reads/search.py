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
    matched_terms: list[str] | None = Field(
        default=None, description="The terms of q the Record holds (lexical and hybrid)."
    )
    values: Values | None = None


class AttributeTerm(Shape):
    attribute: str
    term: str


class Interpreted(Shape):
    kinds: list[str] | None = Field(
        description="The Kinds words of q named and the search was narrowed to (null: none)."
    )
    terms: list[str] = Field(description="The terms searched, after corrections.")
    attributes: list[AttributeTerm] = Field(description="attr:value terms of q.")


class SearchAnswer(Stamped):
    q: str
    mode: Literal["lexical", "semantic", "hybrid"]
    kinds: list[str]
    corrected: list[Correction] | None = Field(default=None, description="Not for semantic.")
    interpreted: Interpreted | None = Field(
        default=None, description="How q was read (not for semantic)."
    )
    notes: list[str] | None = Field(
        default=None,
        description="Terms that matched nothing and, for an empty answer, what to try "
        "(not for semantic).",
    )
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
