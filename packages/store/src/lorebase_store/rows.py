"""Rows of the store's tables as the dataclasses it returns, and those as JSON documents.

`from_row` fills each field from the column of the same name; the caller names the fields whose
value is converted (a copy of a JSON list, a time stamp shown) or comes from elsewhere.
`field_document` is the `to_json` of a dataclass whose document is all its fields.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Built = TypeVar("Built", bound="DataclassInstance")


@cache
def _field_names(cls: type[DataclassInstance]) -> tuple[str, ...]:
    return tuple(field.name for field in fields(cls) if field.init)


def from_row(cls: type[Built], row: Any, **values: Any) -> Built:
    """A `cls` from a row (a `Row` or a mapping of columns) and the field `values` given.

    A field not given takes the row's column of its name; one the row lacks keeps its default.
    """
    columns = row._mapping if isinstance(row, sa.Row) else row
    for name in _field_names(cls):
        if name not in values and name in columns:
            values[name] = columns[name]
    return cls(**values)


def field_document(instance: DataclassInstance) -> dict[str, Any]:
    """Every field of a dataclass by name, in the order declared (the values themselves)."""
    return {name: getattr(instance, name) for name in _field_names(type(instance))}
