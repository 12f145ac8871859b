"""One error registry: every problem class is in `lorebase_core.errors`, and the client knows each.

Four rules, checked together so that a class added anywhere meets all of them:

1. no module of `packages/*/src` defines a `LorebaseError` class outside `lorebase_core.errors`;
2. every code belongs to one class;
3. the hierarchy in the module docstring names every class of the module under its base, with its
   status and code, and names no class the module lacks;
4. the client raises each code as its own class;

and docs/api.md's table of problem codes lists each class, its status, code and title.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import httpx

from lorebase_client.errors import error_from_response
from lorebase_core import errors as core_errors
from lorebase_core.errors import InvalidInput, Issue, LorebaseError

PACKAGES = Path(__file__).resolve().parents[2]
API_DOC = PACKAGES.parent / "docs" / "api.md"
_DOC_ROW = re.compile(r"^\| (\d{3}) \| `([^`]+)` \| `(\w+)` \| (.+) \|$")
_TREE_LINE = re.compile(
    r"^    (?P<indent>[│├└─ ]*)(?P<name>[A-Z]\w+)\s+(?P<status>\d{3}) (?P<code>\S+)"
)


def _import_every_module() -> None:
    """Import each module of every package, so each class that exists is a known subclass."""
    for source in sorted(PACKAGES.glob("*/src/lorebase_*")):
        package = importlib.import_module(source.name)
        for module in pkgutil.walk_packages(package.__path__, f"{source.name}."):
            if ".migrations" in module.name:
                continue  # Alembic's env scripts run a migration when imported
            importlib.import_module(module.name)


def _every_error_class() -> list[type[LorebaseError]]:
    _import_every_module()
    found: list[type[LorebaseError]] = []
    pending: list[type[LorebaseError]] = [LorebaseError]
    while pending:
        cls = pending.pop()
        if cls not in found:
            found.append(cls)
            pending.extend(cls.__subclasses__())
    return found


def _docstring_tree() -> dict[str, tuple[str | None, int, str]]:
    """The docstring's tree: each class name with its parent's name, status and code."""
    tree: dict[str, tuple[str | None, int, str]] = {}
    parents: dict[int, str] = {}
    for line in (core_errors.__doc__ or "").splitlines():
        match = _TREE_LINE.match(line)
        if match is None:
            continue
        depth = len(match["indent"]) // 4
        parents[depth] = match["name"]
        parent = parents.get(depth - 1) if depth else None
        assert match["name"] not in tree, f"{match['name']} is twice in the tree"
        tree[match["name"]] = (parent, int(match["status"]), match["code"])
    return tree


def test_every_problem_class_is_one_class_of_lorebase_core_errors() -> None:
    classes = _every_error_class()
    elsewhere = sorted(
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in classes
        if cls.__module__ != core_errors.__name__ and not cls.__module__.startswith(("test", "_"))
    )
    assert elsewhere == [], "define these in lorebase_core.errors"

    by_code: dict[str, list[str]] = {}
    for cls in classes:
        if cls.__module__ == core_errors.__name__:
            by_code.setdefault(cls.code, []).append(cls.__name__)
    assert {code: names for code, names in by_code.items() if len(names) > 1} == {}

    tree = _docstring_tree()
    module_classes = {
        cls.__name__: cls for cls in classes if cls.__module__ == core_errors.__name__
    }
    assert sorted(tree) == sorted(module_classes), "the docstring tree and the module differ"
    for name, cls in module_classes.items():
        parent = next((base.__name__ for base in cls.__bases__ if base in classes), None)
        assert tree[name] == (parent, cls.status, cls.code), name

    request = httpx.Request("GET", "http://keeper.test/api/v1/domains/supply/schema")
    for cls in module_classes.values():
        error = (
            cls("detail", [Issue("a", "bad")]) if issubclass(cls, InvalidInput) else cls("detail")
        )
        answer = httpx.Response(cls.status, json=error.to_problem(), request=request)
        assert type(error_from_response(answer)) is cls, cls.code


def test_the_api_document_lists_every_problem_code() -> None:
    classes = [cls for cls in _every_error_class() if cls.__module__ == core_errors.__name__]
    documented = {
        match.groups()
        for line in API_DOC.read_text("utf-8").splitlines()
        if (match := _DOC_ROW.match(line))
    }
    expected = {(str(cls.status), cls.code, cls.__name__, cls.title) for cls in classes}
    assert sorted(documented) == sorted(expected)
