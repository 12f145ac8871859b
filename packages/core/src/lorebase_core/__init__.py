"""Lorebase core: schema as code, value types and canonical forms, change sets, errors.

No database or network I/O; the one file it touches is the CLI's profiles file (profiles_file),
which the client and the demo share.
"""

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
