"""Schema as code: the document model, its loader and its look-ups."""

from lorebase_core.schema.checks import KIND_NAME
from lorebase_core.schema.document import Direction, RelationEnd, Schema, canonical_json
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
from lorebase_core.schema.yaml_text import parse_yaml

__all__ = [
    "KIND_NAME",
    "AttributeDef",
    "Direction",
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
    "parse_yaml",
]
