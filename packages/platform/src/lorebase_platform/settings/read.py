"""read: the limits of reads (pages, query, traverse, neighborhood, health, search, resolve)."""

from __future__ import annotations

from pydantic import Field

from lorebase_platform.settings.base import Section, count, flag, seconds, section


class PageSettings(Section):
    default_limit: int = count(100, "Items per page when not asked.")
    max_limit: int = count(1000, "Largest page a request may ask for.")


TRACE_SESSIONS_PAGE = PageSettings(default_limit=50, max_limit=500)
"""Pages of GET /trace/sessions: fixed, keeper.trace has no page settings (docs/trace.md)."""


AUDIT_PAGE = PageSettings(default_limit=50, max_limit=500)
"""Pages of GET /domains/{domain}/audit: fixed, like the trace's (docs/trace.md)."""


class HistorySettings(PageSettings):
    default_limit: int = count(50, "Changes per history page.")
    max_limit: int = count(500, "Largest history page.")
    lineage_count_max: int = count(1000, "Changes lineage counts before changes_truncated.")


class QuerySettings(PageSettings):
    max_predicates: int = count(64, "Comparisons and Relation predicates in one where.")
    max_hops: int = count(4, "Relation predicates nested inside one another.")
    max_string_length: int = count(
        1000,
        "Longest string a comparison takes (eq, in items, contains, starts_with ...): "
        "longer than any name, code or phrase searched for, and far below the 50,000 characters "
        "at which SQLite refuses a LIKE pattern.",
    )
    max_in_values: int = count(
        1000,
        "Values of one in list: a page of keys from an earlier answer fits; past it, "
        "filter by a Relation or another Attribute.",
    )
    max_metrics: int = count(32, "Metrics of one aggregate (each is a column of its SQL).")
    explain_empty_max_checks: int = count(
        8,
        "Statements an empty answer may run to say why (each filter checked alone, "
        "the stored values near a text filter, a Relation's Links); the rest is skipped and "
        "said. 0 turns the checks off.",
        ge=0,
    )
    explain_empty_max_values: int = count(
        5000,
        "Distinct values of an Attribute read to find the terms closest to a text "
        "filter that matched nothing (the most frequent first).",
    )


class TraverseSettings(Section):
    max_hops: int = count(4, "Relations in one traversal path.")
    max_results: int = count(1000, "Records a traversal answers (capped past it).")


class NeighborhoodSettings(Section):
    max_depth: int = count(3, "Largest depth of POST /neighborhood.", ge=0)
    max_records: int = count(500, "Records of a neighborhood (capped past it).")
    max_links: int = count(2000, "Links of a neighborhood (capped past it).")


class HealthSettings(Section):
    max_records_validated: int = count(10000, "Records of a Kind re-validated before sampling.")
    max_examples: int = count(5, "Example keys per violation group.")
    max_duplicate_groups: int = count(50, "Duplicate groups listed per Attribute.")
    max_orphans: int = count(50, "Orphan Links listed per Relation.")
    statement_timeout_s: float = seconds(30.0, "Longest a health statement may run (PostgreSQL).")


class SearchSettings(PageSettings):
    default_limit: int = count(20, "Hits when not asked.")
    max_limit: int = count(100, "Most hits a search answers.")
    min_similarity: float = Field(
        default=0.3, ge=0, le=1, description="Trigram similarity a spelling correction needs."
    )
    max_q_chars: int = count(
        500, "Longest q of POST /search (and search seed of POST /context), in characters."
    )
    candidates_per_term: int = count(
        1000,
        "Documents a lexical search reads per term at most (in Kind and key order) "
        "to rank them; a term held by more still counts them all in its weight.",
    )


class ResolveMissesSettings(Section):
    """Bounds on the phrases POST /resolve keeps (docs/resolve.md)."""

    max_per_principal_per_day: int = count(
        200,
        "Phrases one principal's requests may record per UTC day, new or seen "
        "before (the rest are not kept; 0: none).",
        ge=0,
    )
    retention_days: int = count(
        30, "Days a phrase is kept after it was last seen; older ones are deleted.", le=3650
    )
    max_words: int = count(
        3,
        "Longest phrase kept, in words (a longer run of unmatched words is a "
        "sentence, not a term).",
        le=10,
    )


class ResolveSettings(Section):
    max_text_chars: int = count(500, "Longest text resolved.")
    max_candidates: int = count(20, "Candidates answered at most.")
    max_candidates_per_phrase: int = count(
        3, "Candidates one phrase of the text gives at most (the best scores)."
    )
    max_suggestions: int = count(3, "Suggested queries answered at most (0: none).", ge=0)
    max_indexed_values: int = count(
        200,
        "Strings of an Attribute are indexed for resolve when it has at most this "
        "many distinct values (enums always, resolvable: true|false forces it).",
    )
    max_value_length: int = count(64, "Longest string value indexed for resolve.")
    min_similarity: float = Field(
        default=0.4, ge=0, le=1, description="Trigram similarity of the similar-spelling level."
    )
    record_misses: bool = flag(True, "Keep the phrases nothing matched (governance suggestions).")
    misses: ResolveMissesSettings = section(
        ResolveMissesSettings, "How many phrases are kept, which, and for how long."
    )


class ReadSettings(Section):
    records: PageSettings = section(PageSettings, "GET .../records and Links pages.")
    history: HistorySettings = section(HistorySettings, "History and lineage reads.")
    query: QuerySettings = section(QuerySettings, "POST /query.")
    traverse: TraverseSettings = section(TraverseSettings, "POST /traverse.")
    neighborhood: NeighborhoodSettings = section(NeighborhoodSettings, "POST /neighborhood.")
    health: HealthSettings = section(HealthSettings, "GET /health and /kinds/{kind}/health.")
    search: SearchSettings = section(SearchSettings, "POST /search.")
    resolve: ResolveSettings = section(ResolveSettings, "POST /resolve.")
