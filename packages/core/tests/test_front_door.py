"""Core's front door: other code imports `lorebase_core` and its public modules only.

The public modules are the ones `lorebase_core`'s docstring lists in its table; the modules inside
its subpackages (`lorebase_core.schema.model`) are private. import-linter checks the packages
(`core-front-door`); this also covers their tests, bench/ and scripts/.
"""

from __future__ import annotations

import ast
import pkgutil
import re
from pathlib import Path

import lorebase_core

ROOT = Path(__file__).resolve().parents[3]
CORE = ROOT / "packages" / "core"
_TABLE_ROW = re.compile(r"^\| (`\w+`(?:, `\w+`)*) \|", re.M)


def _public_modules() -> set[str]:
    """The modules named in the first column of the docstring's table."""
    rows = _TABLE_ROW.findall(lorebase_core.__doc__ or "")
    return {name.strip("` ") for row in rows for name in row.split(",")}


def _top_level_modules() -> set[str]:
    return {info.name for info in pkgutil.iter_modules(lorebase_core.__path__)}


def _imported_core_modules(tree: ast.AST) -> list[str]:
    """Each module of core an import names (`from lorebase_core import errors` names `errors`)."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            if node.module == "lorebase_core":
                found.extend(f"lorebase_core.{alias.name}" for alias in node.names)
    return [name for name in found if name == "lorebase_core" or name.startswith("lorebase_core.")]


def test_the_docstring_names_every_module_of_core_public_or_private() -> None:
    public = _public_modules()
    assert public, "the table of public modules is missing from lorebase_core's docstring"
    modules = _top_level_modules()
    assert public <= modules, f"not modules of lorebase_core: {sorted(public - modules)}"
    private_line = (lorebase_core.__doc__ or "").split("Private:", 1)[-1]
    unnamed = sorted(name for name in modules - public if not re.search(rf"`{name}`", private_line))
    assert unnamed == [], "name these in lorebase_core's docstring, as public or private"


def test_code_outside_core_imports_only_its_public_modules() -> None:
    public = _public_modules()
    outside = [
        path
        for path in ROOT.rglob("*.py")
        if not path.is_relative_to(CORE)
        and not any(part.startswith(".") for part in path.relative_to(ROOT).parts)
    ]
    assert len(outside) > 100
    offenders = []
    for path in outside:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for name in _imported_core_modules(tree):
            parts = name.split(".")
            if len(parts) == 1 or (len(parts) == 2 and parts[1] in public):
                continue
            if len(parts) == 2 and parts[1] not in _top_level_modules():
                continue  # a name imported from `lorebase_core` itself, not a module
            offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == [], "import these from lorebase_core's public modules"
