"""Load a schema document and check every rule of docs/schema.md, reporting all problems."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from lorebase_core.errors import Issue, SchemaInvalid
from lorebase_core.expressions import ExpressionError
from lorebase_core.schema.checks import check_schema
from lorebase_core.schema.document import Schema
from lorebase_core.schema.model import (
    EDIT_OPS,
    AttributeDef,
    DomainDef,
    EditDef,
    KindDef,
    LensDef,
    OperationDef,
    RelationDef,
    SearchDef,
    TraitDef,
)
from lorebase_core.schema.yaml_text import parse_yaml

ModelT = TypeVar("ModelT", bound=BaseModel)
_EDIT_MEMBERS = {"from": "from_ref", "to": "to_ref"}
_TOP_LEVEL = ("domain", "search", "traits", "kinds", "relations", "lenses", "operations")


def load_schema(text: str) -> Schema:
    """Parse and check a schema document; raises `SchemaInvalid` listing every problem."""
    issues: list[Issue] = []
    try:
        document = parse_yaml(text)
    except yaml.YAMLError as exc:
        raise SchemaInvalid("The schema is not valid YAML", [Issue("", str(exc), "yaml")]) from exc
    if not isinstance(document, dict):
        raise SchemaInvalid(
            "The schema must be a mapping", [Issue("", "expected a mapping at the top")]
        )
    for member in sorted(set(document) - set(_TOP_LEVEL)):
        issues.append(
            Issue(
                str(member), f"unknown member; expected one of {', '.join(_TOP_LEVEL)}", "unknown"
            )
        )
    domain = _parse(DomainDef, document.get("domain"), "domain", issues)
    search = _parse(SearchDef, document.get("search") or {}, "search", issues)
    traits = _parse_map(TraitDef, document, "traits", issues)
    kinds = _parse_map(KindDef, document, "kinds", issues, _normalize_kind)
    relations = _parse_map(RelationDef, document, "relations", issues)
    lenses = _parse_map(LensDef, document, "lenses", issues)
    operations = _parse_map(OperationDef, document, "operations", issues, _normalize_operation)
    if domain is None or search is None:
        raise SchemaInvalid("The schema has problems", issues or [Issue("domain", "required")])
    schema = Schema(domain, search, traits, kinds, relations, lenses, operations, source=text)
    issues.extend(check_schema(schema))
    if issues:
        raise SchemaInvalid(f"The schema has {len(set(issues))} problem(s)", issues)
    return schema


def _parse(model: type[ModelT], raw: object, path: str, issues: list[Issue]) -> ModelT | None:
    if raw is None:
        issues.append(Issue(path, "required", "missing"))
        return None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        issues.extend(_issues_of(exc, path))
        return None


def _parse_map(
    model: type[ModelT],
    document: Mapping[str, Any],
    section: str,
    issues: list[Issue],
    normalize: Any = None,
) -> dict[str, ModelT]:
    raw = document.get(section) or {}
    if not isinstance(raw, dict):
        issues.append(Issue(section, "expected a mapping of names to definitions"))
        return {}
    parsed: dict[str, ModelT] = {}
    for name in sorted(raw, key=str):
        path = f"{section}.{name}"
        value = raw[name]
        if normalize is not None and isinstance(value, dict):
            value = normalize(value, path, issues)
        result = _parse(model, value if value is not None else {}, path, issues)
        if result is not None:
            parsed[str(name)] = result
    return parsed


def _issues_of(error: ValidationError, prefix: str) -> list[Issue]:
    found = []
    for item in error.errors():
        location = ".".join(str(part) for part in item["loc"] if not _is_union_tag(str(part)))
        path = f"{prefix}.{location}" if location else prefix
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = "unknown member"
        found.append(Issue(path, message, item["type"]))
    return found


_UNION_TAG = re.compile(r"^(int|float|str|bool|list\[.*\]|dict\[.*\]|tuple\[.*\])$")


def _is_union_tag(part: str) -> bool:
    return bool(_UNION_TAG.match(part))


def _normalize_kind(raw: dict[str, Any], path: str, issues: list[Issue]) -> dict[str, Any]:
    key = raw.get("key")
    if isinstance(key, str):
        return {**raw, "key": [key]}
    return raw


def _normalize_operation(raw: dict[str, Any], path: str, issues: list[Issue]) -> dict[str, Any]:
    edits = raw.get("edits")
    if not isinstance(edits, list):
        return raw
    normalized: list[dict[str, Any]] = []
    for index, edit in enumerate(edits):
        edit_path = f"{path}.edits.{index}"
        if not isinstance(edit, dict) or len(edit) != 1 or next(iter(edit)) not in EDIT_OPS:
            issues.append(
                Issue(edit_path, f"an edit is a mapping with one of {', '.join(EDIT_OPS)}")
            )
            continue
        op, body = next(iter(edit.items()))
        if not isinstance(body, dict):
            issues.append(Issue(f"{edit_path}.{op}", "expected a mapping"))
            continue
        renamed = {
            _EDIT_MEMBERS.get(str(member), str(member)): value for member, value in body.items()
        }
        unknown = set(renamed) - set(EditDef.model_fields) - {"op"}
        for member in sorted(unknown):
            issues.append(Issue(f"{edit_path}.{op}.{member}", "unknown member", "extra_forbidden"))
        normalized.append({"op": op, **{k: v for k, v in renamed.items() if k not in unknown}})
    return {**raw, "edits": normalized}


__all__ = ["AttributeDef", "ExpressionError", "load_schema"]
