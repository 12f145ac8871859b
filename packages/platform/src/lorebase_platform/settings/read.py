"""read: the limits of reads (pages, query, traverse, neighborhood, health, search, resolve)."""

from __future__ import annotations

from pydantic import Field

from lorebase_platform.settings.base import Section


class PageSettings(Section):
    default_limit: int = Field(default=100, ge=1, description="Items per page when not asked.")
    max_limit: int = Field(default=1000, ge=1, description="Largest page a request may ask for.")


TRACE_SESSIONS_PAGE = PageSettings(default_limit=50, max_limit=500)
"""Pages of GET /trace/sessions: fixed, keeper.trace has no page settings (docs/trace.md)."""


AUDIT_PAGE = PageSettings(default_limit=50, max_limit=500)
"""Pages of GET /domains/{domain}/audit: fixed, like the trace's (docs/trace.md)."""


class HistorySettings(PageSettings):
    default_limit: int = Field(default=50, ge=1, description="Changes per history page.")
    max_limit: int = Field(default=500, ge=1, description="Largest history page.")
    lineage_count_max: int = Field(
        default=1000, ge=1, description="Changes lineage counts before changes_truncated."
    )


class QuerySettings(PageSettings):
    max_predicates: int = Field(
        default=64, ge=1, description="Comparisons and Relation predicates in one where."
    )
    max_hops: int = Field(
        default=4, ge=1, description="Relation predicates nested inside one another."
    )
    max_string_length: int = Field(
        default=1000,
        ge=1,
        description="Longest string a comparison takes (eq, in items, contains, starts_with ...): "
        "longer than any name, code or phrase searched for, and far below the 50,000 characters "
        "at which SQLite refuses a LIKE pattern.",
    )
    max_in_values: int = Field(
        default=1000,
        ge=1,
        description="Values of one in list: a page of keys from an earlier answer fits; past it, "
        "filter by a Relation or another Attribute.",
    )
    max_metrics: int = Field(
        default=32, ge=1, description="Metrics of one aggregate (each is a column of its SQL)."
    )
    explain_empty_max_checks: int = Field(
        default=8,
        ge=0,
        description="Statements an empty answer may run to say why (each filter checked alone, "
        "the stored values near a text filter, a Relation's Links); the rest is skipped and "
        "said. 0 turns the checks off.",
    )
    explain_empty_max_values: int = Field(
        default=5000,
        ge=1,
        description="Distinct values of an Attribute read to find the terms closest to a text "
        "filter that matched nothing (the most frequent first).",
    )


class TraverseSettings(Section):
    max_hops: int = Field(default=4, ge=1, description="Relations in one traversal path.")
    max_results: int = Field(
        default=1000, ge=1, description="Records a traversal answers (capped past it)."
    )


class NeighborhoodSettings(Section):
    max_depth: int = Field(default=3, ge=0, description="Largest depth of POST /neighborhood.")
    max_records: int = Field(
        default=500, ge=1, description="Records of a neighborhood (capped past it)."
    )
    max_links: int = Field(
        default=2000, ge=1, description="Links of a neighborhood (capped past it)."
    )


class HealthSettings(Section):
    max_records_validated: int = Field(
        default=10000, ge=1, description="Records of a Kind re-validated before sampling."
    )
    max_examples: int = Field(default=5, ge=1, description="Example keys per violation group.")
    max_duplicate_groups: int = Field(
        default=50, ge=1, description="Duplicate groups listed per Attribute."
    )
    max_orphans: int = Field(default=50, ge=1, description="Orphan Links listed per Relation.")
    statement_timeout_s: float = Field(
        default=30.0, gt=0, description="Longest a health statement may run (PostgreSQL)."
    )


class SearchSettings(PageSettings):
    default_limit: int = Field(default=20, ge=1, description="Hits when not asked.")
    max_limit: int = Field(default=100, ge=1, description="Most hits a search answers.")
    min_similarity: float = Field(
        default=0.3, ge=0, le=1, description="Trigram similarity a spelling correction needs."
    )
    max_q_chars: int = Field(
        default=500,
        ge=1,
        description="Longest q of POST /search (and search seed of POST /context), in characters.",
    )
    candidates_per_term: int = Field(
        default=1000,
        ge=1,
        description="Documents a lexical search reads per term at most (in Kind and key order) "
        "to rank them; a term held by more still counts them all in its weight.",
    )


class ResolveMissesSettings(Section):
    """Bounds on the phrases POST /resolve keeps (docs/resolve.md)."""

    max_per_principal_per_day: int = Field(
        default=200,
        ge=0,
        description="Phrases one principal's requests may record per UTC day, new or seen "
        "before (the rest are not kept; 0: none).",
    )
    retention_days: int = Field(
        default=30,
        ge=1,
        le=3650,
        description="Days a phrase is kept after it was last seen; older ones are deleted.",
    )
    max_words: int = Field(
        default=3,
        ge=1,
        le=10,
        description="Longest phrase kept, in words (a longer run of unmatched words is a "
        "sentence, not a term).",
    )


class ResolveSettings(Section):
    max_text_chars: int = Field(default=500, ge=1, description="Longest text resolved.")
    max_candidates: int = Field(default=20, ge=1, description="Candidates answered at most.")
    max_candidates_per_phrase: int = Field(
        default=3,
        ge=1,
        description="Candidates one phrase of the text gives at most (the best scores).",
    )
    max_suggestions: int = Field(
        default=3, ge=0, description="Suggested queries answered at most (0: none)."
    )
    max_indexed_values: int = Field(
        default=200,
        ge=1,
        description="Strings of an Attribute are indexed for resolve when it has at most this "
        "many distinct values (enums always, resolvable: true|false forces it).",
    )
    max_value_length: int = Field(
        default=64, ge=1, description="Longest string value indexed for resolve."
    )
    min_similarity: float = Field(
        default=0.4, ge=0, le=1, description="Trigram similarity of the similar-spelling level."
    )
    record_misses: bool = Field(
        default=True, description="Keep the phrases nothing matched (governance suggestions)."
    )
    misses: ResolveMissesSettings = Field(
        default_factory=ResolveMissesSettings,
        description="How many phrases are kept, which, and for how long.",
    )


class ReadSettings(Section):
    records: PageSettings = Field(
        default_factory=PageSettings, description="GET .../records and Links pages."
    )
    history: HistorySettings = Field(
        default_factory=HistorySettings, description="History and lineage reads."
    )
    query: QuerySettings = Field(default_factory=QuerySettings, description="POST /query.")
    traverse: TraverseSettings = Field(
        default_factory=TraverseSettings, description="POST /traverse."
    )
    neighborhood: NeighborhoodSettings = Field(
        default_factory=NeighborhoodSettings, description="POST /neighborhood."
    )
    health: HealthSettings = Field(
        default_factory=HealthSettings, description="GET /health and /kinds/{kind}/health."
    )
    search: SearchSettings = Field(default_factory=SearchSettings, description="POST /search.")
    resolve: ResolveSettings = Field(default_factory=ResolveSettings, description="POST /resolve.")
