"""Query parameters many routes share, declared once so the OpenAPI document says the same."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Annotated

from fastapi import Query

from lorebase_core.errors import Issue, quoted
from lorebase_core.suggestions import hint

BRANCH = Annotated[
    str | None, Query(description="The branch to read (default: the Domain's default branch).")
]
AT = Annotated[
    str | None,
    Query(description="Read as of this Revision: a full id, a unique prefix of one, or a tag."),
]
LIMIT = Annotated[
    int | None, Query(description="Items per page (default and maximum in read settings).")
]
CURSOR = Annotated[str | None, Query(description="next_cursor of the previous page.")]
FORMAT = Annotated[
    str, Query(pattern="^(json|markdown)$", description="json, or markdown for a prompt.")
]
ATTRIBUTES = Annotated[
    list[str] | None,
    Query(
        description="Only these Attributes: comma-separated, the parameter may be repeated "
        "(attributes=risk_score,tier or attributes=risk_score&attributes=tier)."
    ),
]


def listed_names(values: list[str] | None) -> list[str] | None:
    """The names of a list parameter, commas split, blanks dropped, first spelling kept
    (None when the parameter is absent)."""
    if values is None:
        return None
    names = (name.strip() for value in values for name in value.split(","))
    return list(dict.fromkeys(name for name in names if name))


def unknown_names(
    parameter: str, names: Iterable[str], known: Collection[str], *, owner: str, noun: str
) -> list[Issue]:
    """An issue `unknown-<noun>` for each of `names` that `known` does not hold: `<owner> has no
    <noun> 'x'`, the closest known names, and all of them."""
    listed = ", ".join(known)
    return [
        Issue(
            parameter,
            f"{owner} has no {noun} {quoted(name)}"
            f"{hint(name, known, f'{noun}s', listed=0)}; use one of {listed}",
            f"unknown-{noun.lower()}",
        )
        for name in names
        if name not in known
    ]
