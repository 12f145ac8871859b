"""The arguments tools share, typed and described once (the input schemas models read)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from lorebase_herald.problems import Refusal


def _blank_is_none(value: Any) -> Any:
    """An empty string for an optional argument means "not given" (small models send them)."""
    return None if value == "" else value


Blank = BeforeValidator(_blank_is_none)

Domain = Annotated[
    str, Field(description="The Domain to read, for example 'supply'.", min_length=1)
]
Kind = Annotated[
    str | None,
    Blank,
    Field(
        description="The Record's Kind, for example 'Supplier' (may be left out when key is "
        "written Kind/key)."
    ),
]
Key = Annotated[
    str,
    Field(description="The Record's key, for example 'S-1001', or Kind/key: 'Supplier/S-1001'."),
]
Branch = Annotated[
    str | None, Blank, Field(description="Branch to read; default: the Domain's default branch.")
]
At = Annotated[
    str | None,
    Blank,
    Field(
        description="Read the state at this Revision (a full id, a unique prefix of one, or a "
        "tag) instead of the branch head; pass the revision of an earlier answer to read the "
        "same state again."
    ),
]
Limit = Annotated[
    int | None, Field(description="Items per page (Keeper's default if omitted).", ge=1)
]
Cursor = Annotated[
    str | None, Blank, Field(description="The cursor of the previous page, to read the next one.")
]
Refs = Annotated[
    list[str],
    Field(
        description="Record references written Kind/key, e.g. ['Supplier/S-1007'].", min_length=1
    ),
]
Kinds = Annotated[
    list[str] | None, Field(description="Only these Kinds, e.g. ['Part', 'Supplier'].")
]
Relations = Annotated[list[str] | None, Field(description="Only follow these Relations.")]
Lens = Annotated[
    str | None,
    Blank,
    Field(description="A lens of the Domain (lorebase_schema lists them): a read preset."),
]


def record_of(kind: str | None, key: str) -> tuple[str, str]:
    """The Kind and key of a Record named by `kind` and `key`, or by `key` alone written
    Kind/key.

    Raises:
        Refusal: no Kind given and the key names none.
    """
    if kind is None:
        found, slash, rest = key.partition("/")
        if not slash or not found or not rest:
            raise Refusal(
                f"Name the Record: kind and key ({key!r} has no Kind), or key written Kind/key "
                "such as 'Supplier/S-1001'."
            )
        return found, rest
    if key.startswith(f"{kind}/"):
        return kind, key[len(kind) + 1 :]
    return kind, key


def _names_of_text(value: Any) -> Any:
    """A list argument sent as text ("risk_score" or "status, value"), as small models do."""
    if isinstance(value, str):
        return [name.strip() for name in value.split(",") if name.strip()] or None
    return value


Attributes = Annotated[
    list[str] | None,
    BeforeValidator(_names_of_text),
    Field(
        description="Only the changes of these Attributes, each with only their values, "
        "e.g. ['risk_score']."
    ),
]
