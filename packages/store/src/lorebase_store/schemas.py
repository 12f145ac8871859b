"""Schemas are stored once per digest; every Revision names the schema it was committed under."""

from __future__ import annotations

import sqlalchemy as sa

from lorebase_core.schema import Schema, load_schema
from lorebase_store import tables as t


def save_schema(connection: sa.Connection, schema: Schema) -> None:
    exists = connection.execute(
        sa.select(t.schemas.c.digest).where(t.schemas.c.digest == schema.digest)
    ).scalar()
    if exists is None:
        connection.execute(
            t.schemas.insert().values(
                digest=schema.digest, document=schema.to_document(), source=schema.source
            )
        )


_parsed: dict[str, Schema] = {}


def schema_by_digest(connection: sa.Connection, digest: str) -> Schema:
    """The schema with this digest; parsed once per process (a digest names one content)."""
    schema = _parsed.get(digest)
    if schema is None:
        source = connection.execute(
            sa.select(t.schemas.c.source).where(t.schemas.c.digest == digest)
        ).scalar_one()
        schema = _parsed.setdefault(digest, load_schema(source))
    return schema
