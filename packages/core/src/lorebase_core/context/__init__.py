"""Context packs (agents.md section 1): the request, lenses and Traits, sections and the budget.

Pure: Keeper reads the graph and the history through the store and assembles the pack
(`lorebase_keeper.reads.context_pack`).
"""

from lorebase_core.context.budget import Renderer, Trimmed, estimate_tokens, trim
from lorebase_core.context.lenses import LensView, resolve_lens, trait_kinds
from lorebase_core.context.pack import (
    ImportedRecords,
    LineageEntry,
    Pack,
    PackLink,
    PackRecord,
    PackSchema,
    RecentChange,
    SchemaAttribute,
    SchemaKind,
    SchemaRelation,
    Section,
    render_json_section,
    section_json,
    summarise_imports,
)
from lorebase_core.context.request import (
    ContextLimits,
    ContextRequest,
    SchemaDetail,
    parse_context,
)
from lorebase_core.errors import ContextRequestInvalid, LensUnknown

__all__ = [
    "ContextLimits",
    "ContextRequest",
    "ContextRequestInvalid",
    "ImportedRecords",
    "LensUnknown",
    "LensView",
    "LineageEntry",
    "Pack",
    "PackLink",
    "PackRecord",
    "PackSchema",
    "RecentChange",
    "Renderer",
    "SchemaAttribute",
    "SchemaDetail",
    "SchemaKind",
    "SchemaRelation",
    "Section",
    "Trimmed",
    "estimate_tokens",
    "parse_context",
    "render_json_section",
    "resolve_lens",
    "section_json",
    "summarise_imports",
    "trait_kinds",
    "trim",
]
