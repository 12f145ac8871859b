"""Reading the members of a request or YAML document, each problem kept as an `Issue`.

Private to core: the parsers of POST /traverse, /neighborhood and /context, of change sets and of
schema edits share these.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from lorebase_core.errors import BadRequest, InvalidInput, Issue, shortened
from lorebase_core.refs import RecordRef

if TYPE_CHECKING:  # the schema's package imports this module: no cycle at run time
    from lorebase_core.access import ReadScope
    from lorebase_core.schema import Schema


def json_object(document: object, error: type[InvalidInput]) -> Mapping[str, object]:
    """`document` when it is a JSON object; else `error`, before anything else is checked."""
    if not isinstance(document, Mapping) or not all(isinstance(name, str) for name in document):
        raise error(
            "The request body must be a JSON object", [Issue("", "expected a JSON object", "type")]
        )
    return document


def unknown_members(body: Mapping[str, object], allowed: Collection[str]) -> list[Issue]:
    """One issue per member of `body` that is not `allowed`, in name order."""
    return [
        Issue(shortened(name), f"unknown member; expected one of {', '.join(allowed)}", "unknown")
        for name in sorted(set(body) - set(allowed))
    ]


def optional_text(body: Mapping[str, object], member: str, issues: list[Issue]) -> str | None:
    """The non-empty string `member` of `body`, or None when it is absent (or, with an issue,
    not such a string)."""
    value = body.get(member)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        issues.append(Issue(member, "expected a non-empty string", "type"))
        return None
    return value


def optional_integer(
    body: Mapping[str, object],
    member: str,
    issues: list[Issue],
    *,
    low: int,
    high: int | None = None,
) -> int | None:
    """The integer `member` of `body`, from `low` (to `high` when given), or None when it is
    absent (or, with an issue, not such an integer)."""
    value = body.get(member)
    if value is None:
        return None
    bounds = f"at least {low}" if high is None else f"from {low} to {high}"
    if isinstance(value, bool) or not isinstance(value, int):
        expected = f"of {bounds}" if high is None else bounds
        issues.append(Issue(member, f"expected an integer {expected}", "type"))
        return None
    if value < low or (high is not None and value > high):
        issues.append(Issue(member, f"must be {bounds}, not {value}", "range"))
        return None
    return value


def single_member(
    item: object, path: str, allowed: Collection[str], named: str, issues: list[Issue]
) -> tuple[str, dict[Any, Any]] | None:
    """The name and the mapping of `{name: {...}}`, a mapping with one member of `allowed`
    (`named` says what it is in the issue: "a change"); None, with an issue, otherwise."""
    if not isinstance(item, dict) or len(item) != 1 or next(iter(item)) not in allowed:
        issues.append(Issue(path, f"{named} is a mapping with one of {', '.join(allowed)}"))
        return None
    name, body = next(iter(item.items()))
    if not isinstance(body, dict):
        issues.append(Issue(f"{path}.{name}", "expected a mapping"))
        return None
    return name, body


def record_refs(
    value: object,
    member: str,
    schema: Schema,
    scope: ReadScope,
    max_count: int,
    issues: list[Issue],
) -> list[tuple[int, RecordRef]]:
    """The Record references of the list `value` (the request's `member`), with their index.

    Each Kind is checked readable, which raises `KindNotFound` for one the scope hides.
    """
    if value is None:
        issues.append(Issue(member, "required: a list of Record references (Kind/key)", "missing"))
        return []
    if not isinstance(value, list):
        issues.append(Issue(member, "expected a list of Record references (Kind/key)", "type"))
        return []
    if not 1 <= len(value) <= max_count:
        issues.append(Issue(member, f"give 1 to {max_count} Record references", "range"))
    refs: list[tuple[int, RecordRef]] = []
    for index, item in enumerate(value[:max_count]):  # past the bound, the one issue above
        path = f"{member}[{index}]"
        if not isinstance(item, str):
            issues.append(Issue(path, "expected a string Kind/key", "type"))
            continue
        try:
            ref = RecordRef.parse(item)
        except BadRequest as exc:
            issues.append(Issue(path, exc.detail, "bad-ref"))
            continue
        scope.kind(schema, ref.kind)
        refs.append((index, ref))
    return refs
