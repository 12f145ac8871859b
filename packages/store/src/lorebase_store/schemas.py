"""Schemas are stored once per digest; every Revision names the schema it was committed under."""

from __future__ import annotations

from functools import lru_cache

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


def schema_by_digest(connection: sa.Connection, digest: str) -> Schema:
    source = connection.execute(
        sa.select(t.schemas.c.source).where(t.schemas.c.digest == digest)
    ).scalar_one()
    return _parsed(source)


@lru_cache(maxsize=64)
def _parsed(source: str) -> Schema:
    return load_schema(source)
