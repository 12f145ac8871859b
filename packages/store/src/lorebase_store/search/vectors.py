"""Vectors per Record, and semantic ranking by cosine similarity.

A vector is stored per Record and embedding model (Domain, Kind, key, model), not versioned by
Revision: it describes the Record as it was embedded, on whatever branch, and a semantic search
ranks the Records of the branch read that have one. Ranking is exact cosine similarity computed
by the database (sqlite-vec on SQLite, pgvector on PostgreSQL) over at most `VECTOR_SCAN` stored
vectors of the searched Kinds (beyond that the answer says `capped`). Approximate indexes (vec0,
HNSW) are the next step for Domains with millions of vectors (docs/search.md).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from lorebase_store import tables as t
from lorebase_store.clock import now_stamp
from lorebase_store.engine import is_sqlite

VECTOR_SCAN = 100_000


def put_vector(
    connection: sa.Connection,
    domain_id: int,
    kind: str,
    key: str,
    model: str,
    vector: Sequence[float],
    updated_by: str,
) -> dict[str, Any]:
    """Store (or replace) the vector of a Record for a model; returns what was stored."""
    vectors = t.record_vectors.c
    identity = (
        vectors.domain_id == domain_id,
        vectors.kind == kind,
        vectors.record_key == key,
        vectors.model == model,
    )
    row = {
        "dimensions": len(vector),
        "vector": [float(number) for number in vector],
        "updated_at": now_stamp(),
        "updated_by": updated_by,
    }
    exists = connection.execute(sa.select(vectors.kind).where(*identity)).first()
    if exists is None:
        connection.execute(
            t.record_vectors.insert().values(
                domain_id=domain_id, kind=kind, record_key=key, model=model, **row
            )
        )
    else:
        connection.execute(t.record_vectors.update().where(*identity).values(**row))
    return {"kind": kind, "key": key, "model": model, **row}


def vectors_stamp(connection: sa.Connection, domain_id: int, model: str) -> str:
    """What changes when any vector of the model changes: part of semantic answers' ETags."""
    vectors = t.record_vectors.c
    row = connection.execute(
        sa.select(sa.func.count(), sa.func.max(vectors.updated_at)).where(
            vectors.domain_id == domain_id, vectors.model == model
        )
    ).one()
    return f"{row[0]}:{row[1] or ''}"


def nearest(
    connection: sa.Connection,
    domain_id: int,
    model: str,
    kinds: Sequence[str],
    query: Sequence[float],
) -> tuple[list[tuple[str, str, float]], bool]:
    """The stored vectors of the Kinds, most similar first: (kind, key, cosine), and capped.

    The cosine distance is computed by the database: sqlite-vec's `vec_distance_cosine` on
    SQLite, pgvector's `<=>` on PostgreSQL, over every vector of the model (an exact scan, at
    most VECTOR_SCAN of them; `capped` says there were more).
    """
    vectors = t.record_vectors.c
    text = json.dumps([float(number) for number in query])
    distance: sa.ColumnElement[Any]
    if is_sqlite(connection):
        distance = sa.func.vec_distance_cosine(vectors.vector, sa.literal(text))
    else:
        stored = sa.cast(sa.cast(vectors.vector, sa.Text), _VECTOR)
        distance = stored.op("<=>", return_type=sa.Float)(sa.cast(sa.literal(text), _VECTOR))
    scope = [
        vectors.domain_id == domain_id,
        vectors.model == model,
        vectors.kind.in_(list(kinds)),
        vectors.dimensions == len(query),
    ]
    if not any(query):
        return [], False  # a zero vector has no direction: nothing is similar to it
    total = connection.execute(sa.select(sa.func.count()).where(*scope)).scalar_one()
    rows = connection.execute(
        sa.select(vectors.kind, vectors.record_key, distance.label("distance"))
        .where(*scope)
        .order_by(distance, vectors.kind, vectors.record_key)
        .limit(VECTOR_SCAN)
    ).all()
    ranked = [
        (row.kind, row.record_key, round(1.0 - float(row.distance), 6))
        for row in rows
        if row.distance is not None and not math.isnan(float(row.distance))
    ]
    ranked.sort(key=lambda entry: (-entry[2], entry[0], entry[1]))
    return ranked, total > VECTOR_SCAN


class _Vector(sa.types.UserDefinedType[str]):
    """pgvector's `vector` type, for casts only (vectors are stored as JSON arrays)."""

    cache_ok = True

    def get_col_spec(self, **_kw: object) -> str:
        return "vector"


_VECTOR = _Vector()
