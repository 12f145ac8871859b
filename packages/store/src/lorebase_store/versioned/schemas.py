"""Schemas are stored once per digest; every Revision names the schema it was committed under."""

from __future__ import annotations

import sqlalchemy as sa

from lorebase_core.schema import Schema, load_schema
from lorebase_store import tables as t
from lorebase_store.results import DomainInfo


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


_SCHEMA_DIGEST = sa.select(t.revisions.c.schema_digest).where(
    t.revisions.c.id == sa.bindparam("revision")
)
_digests: dict[str, str] = {}
_DIGESTS_KEPT = 10_000


def schema_at(connection: sa.Connection, domain: DomainInfo, revision: str | None) -> Schema:
    """The schema of a Revision (the Domain's first schema before any commit).

    A Revision's digest never changes, so it is remembered per process.
    """
    if revision is None:
        return schema_by_digest(connection, str(domain.settings["initial_schema"]))
    digest = _digests.get(revision)
    if digest is None:
        digest = connection.execute(_SCHEMA_DIGEST, {"revision": revision}).scalar_one()
        if len(_digests) >= _DIGESTS_KEPT:
            _digests.clear()
        _digests[revision] = digest
    return schema_by_digest(connection, digest)
