"""The arguments tools share, typed and described once (the input schemas models read)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

Domain = Annotated[
    str, Field(description="The Domain to read, for example 'supply'.", min_length=1)
]
Kind = Annotated[str, Field(description="A Kind of the Domain, for example 'Supplier'.")]
Key = Annotated[str, Field(description="The Record's key, for example 'S-1001'.")]
Branch = Annotated[
    str | None, Field(description="Branch to read; default: the Domain's default branch.")
]
At = Annotated[
    str | None,
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
    str | None, Field(description="The cursor of the previous page, to read the next one.")
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
Lens = Annotated[
    str | None,
    Field(description="A lens of the Domain (lorebase_schema lists them): a read preset."),
]
