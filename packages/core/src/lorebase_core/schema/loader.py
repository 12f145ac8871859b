"""Load a schema document and check every rule of docs/schema.md, reporting all problems."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from lorebase_core.errors import Issue, SchemaInvalid
from lorebase_core.members import single_member
from lorebase_core.schema.checks import check_schema
from lorebase_core.schema.document import Schema
from lorebase_core.schema.model import (
    EDIT_OPS,
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
_WRITTEN_MEMBERS = {parsed: written for written, parsed in _EDIT_MEMBERS.items()}
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
    edits = _EditPositions()
    operations = _parse_map(
        OperationDef, document, "operations", issues, edits.normalize, edits.relocate
    )
    # a placeholder keeps the cross-element checks running when domain or search is broken
    checked = Schema(
        domain or DomainDef(name="placeholder"),
        search or SearchDef(),
        traits,
        kinds,
        relations,
        lenses,
        operations,
        source=text,
    )
    issues.extend(edits.relocate(check_schema(checked)))
    if domain is None or search is None or issues:
        raise SchemaInvalid(f"The schema has {len(set(issues))} problem(s)", issues)
    return checked


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
    relocate: Callable[[list[Issue]], list[Issue]] | None = None,
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
        found: list[Issue] = []
        result = _parse(model, value if value is not None else {}, path, found)
        issues.extend(relocate(found) if relocate is not None else found)
        if result is not None:
            parsed[str(name)] = result
    return parsed


def _issues_of(error: ValidationError, prefix: str) -> list[Issue]:
    found = []
    for item in error.errors():
        parts = [str(part) for part in item["loc"]]
        while parts and _UNION_TAG.match(parts[-1]):  # pydantic names the union member it tried
            parts.pop()
        location = ".".join(parts)
        path = f"{prefix}.{location}" if location else prefix
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = "unknown member"
        found.append(Issue(path, message, item["type"]))
    return found


_UNION_TAG = re.compile(r"^(int|float|str|bool|list\[.*\]|dict\[.*\]|tuple\[.*\])$")


def _normalize_kind(raw: dict[str, Any], path: str, issues: list[Issue]) -> dict[str, Any]:
    key = raw.get("key")
    if isinstance(key, str):
        return {**raw, "key": [key]}
    return raw


class _EditPositions:
    """Keeps each Operation's edits at their place in the document for the paths of problems.

    Edits are written `{upsert_record: {...}}`; they are parsed as `{op: upsert_record, ...}`
    without the malformed ones, so problems found later are moved back to
    `operations.X.edits.<index as written>.<op>.<member as written>`.
    """

    _PATH = re.compile(r"^(operations\.[^.]+)\.edits\.(\d+)(?:\.(.*))?$")

    def __init__(self) -> None:
        self.positions: dict[str, list[tuple[int, str]]] = {}

    def normalize(self, raw: dict[str, Any], path: str, issues: list[Issue]) -> dict[str, Any]:
        edits = raw.get("edits")
        if not isinstance(edits, list):
            return raw
        normalized: list[dict[str, Any]] = []
        kept: list[tuple[int, str]] = []
        for index, edit in enumerate(edits):
            edit_path = f"{path}.edits.{index}"
            entry = single_member(edit, edit_path, EDIT_OPS, "an edit", issues)
            if entry is None:
                continue
            op, body = entry
            renamed = {
                _EDIT_MEMBERS.get(str(member), str(member)): value for member, value in body.items()
            }
            unknown = {
                member for member in renamed if member not in EditDef.model_fields or member == "op"
            }
            for member in sorted(unknown):
                issues.append(
                    Issue(f"{edit_path}.{op}.{member}", "unknown member", "extra_forbidden")
                )
            normalized.append({"op": op, **{k: v for k, v in renamed.items() if k not in unknown}})
            kept.append((index, str(op)))
        self.positions[path] = kept
        return {**raw, "edits": normalized}

    def relocate(self, issues: list[Issue]) -> list[Issue]:
        return [self._relocated(issue) for issue in issues]

    def _relocated(self, issue: Issue) -> Issue:
        match = self._PATH.match(issue.path)
        if match is None or match.group(1) not in self.positions:
            return issue
        kept = self.positions[match.group(1)]
        position = int(match.group(2))
        if position >= len(kept):
            return issue
        index, op = kept[position]
        rest = match.group(3) or ""
        if rest != op and not rest.startswith(f"{op}."):
            head, _, tail = rest.partition(".")
            head = _WRITTEN_MEMBERS.get(head, head)
            rest = f"{op}.{head}.{tail}".rstrip(".") if head else op
        return Issue(f"{match.group(1)}.edits.{index}.{rest}", issue.message, issue.code)
