"""Search (docs/search.md): the index kept by commits, lexical, semantic and hybrid search."""

from __future__ import annotations

from lorebase_store.search.embedding_cursor import (
    EmbeddingCursor,
    EmbeddingPosition,
    EmbeddingWork,
    RecordText,
    SavedEmbeddings,
    embedding_text,
)
from lorebase_store.search.index import index_records, rebuild_index, reindex_branch
from lorebase_store.search.lexical import Correction
from lorebase_store.search.run import SearchHit, SearchResult, search
from lorebase_store.search.vectors import nearest, put_vector, vectors_stamp

__all__ = [
    "Correction",
    "EmbeddingCursor",
    "EmbeddingPosition",
    "EmbeddingWork",
    "RecordText",
    "SavedEmbeddings",
    "SearchHit",
    "SearchResult",
    "embedding_text",
    "index_records",
    "nearest",
    "put_vector",
    "rebuild_index",
    "reindex_branch",
    "search",
    "vectors_stamp",
]
