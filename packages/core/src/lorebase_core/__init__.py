"""Lorebase core: schema as code, value types and canonical forms, change sets, errors. No I/O."""

from lorebase_core.changes import (
    Change,
    DeleteLink,
    DeleteRecord,
    Origin,
    UpsertLink,
    UpsertRecord,
    parse_changes,
)
from lorebase_core.refs import RecordRef
from lorebase_core.schema import Schema, load_schema

__all__ = [
    "Change",
    "DeleteLink",
    "DeleteRecord",
    "Origin",
    "RecordRef",
    "Schema",
    "UpsertLink",
    "UpsertRecord",
    "load_schema",
    "parse_changes",
]
