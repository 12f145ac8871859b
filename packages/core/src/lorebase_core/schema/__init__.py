"""Schema as code: the document model, its loader and its look-ups."""

from lorebase_core.schema.document import RelationEnd, Schema, canonical_json
from lorebase_core.schema.loader import load_schema
from lorebase_core.schema.model import (
    AttributeDef,
    DomainDef,
    EditDef,
    KindDef,
    LensDef,
    OperationDef,
    RelationDef,
    TraitDef,
    ValueRules,
)

__all__ = [
    "AttributeDef",
    "DomainDef",
    "EditDef",
    "KindDef",
    "LensDef",
    "OperationDef",
    "RelationDef",
    "RelationEnd",
    "Schema",
    "TraitDef",
    "ValueRules",
    "canonical_json",
    "load_schema",
]
