"""Read requests that break their rules: query, search, graph walks, context packs, lenses."""

from __future__ import annotations

from collections.abc import Iterable

from lorebase_core.errors.base import InvalidInput, Issue, quoted
from lorebase_core.suggestions import hint


class QueryInvalid(InvalidInput):
    """A query document that breaks the rules of the DSL; lists every issue with its JSON path."""

    code = "query-invalid"
    title = "Invalid query"


class SearchInvalid(InvalidInput):
    """A search document that breaks the rules; lists every issue with its JSON path."""

    code = "search-invalid"
    title = "Invalid search"


class GraphRequestInvalid(InvalidInput):
    """A traversal or neighborhood request that breaks the rules of docs/graph.md."""

    code = "graph-request-invalid"
    title = "Invalid graph request"


class ContextRequestInvalid(InvalidInput):
    """A context pack request that breaks the rules of docs/context.md."""

    code = "context-request-invalid"
    title = "Invalid context request"


class LensUnknown(InvalidInput):
    """A lens the schema does not declare, or none of whose Kinds the caller may read."""

    code = "lens_unknown"
    title = "Unknown lens"

    @classmethod
    def named(cls, name: str, domain: str, visible: Iterable[str]) -> LensUnknown:
        """The error of an unknown lens, also of one the caller may not use: `visible` holds
        only the lenses the caller may use, whichever the two it is."""
        return cls(
            f"Lens {quoted(name)} does not exist in Domain {quoted(domain)}"
            + hint(name, visible, "the lenses you may use"),
            [Issue("lens", f"unknown lens {quoted(name)}", "lens_unknown")],
            lens=name,
        )


class SemanticUnavailable(InvalidInput):
    """Semantic or hybrid search on a schema without `search.embedding`."""

    code = "semantic_unavailable"
    title = "Semantic search unavailable"
