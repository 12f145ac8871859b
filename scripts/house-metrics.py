"""Measure how livable the Python tree is: the numbers issue 31 asked for.

Usage: ``uv run python scripts/house-metrics.py [--functions N]``

Prints modules per folder (the largest folders), the largest modules, functions
longer than 60 and 80 lines, ``Any`` in Keeper, and the longest chain of imports
inside Keeper (by grimp, the graph import-linter builds).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(ROOT.glob("packages/*/src/lorebase_*"))
GENERATED = ("/migrations/versions/", "/lorebase_client/_sync/")


def python_files() -> list[Path]:
    return sorted(p for src in SOURCES for p in src.rglob("*.py") if "__pycache__" not in p.parts)


def long_functions(files: list[Path], limit: int) -> list[tuple[int, str]]:
    found = []
    for path in files:
        if any(g in path.as_posix() for g in GENERATED):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > limit:
                    found.append((length, f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"))
    return sorted(found, reverse=True)


def mirrored(package: str) -> tuple[int, int, list[str]]:
    """Modules of `package` with a test file that mirrors them (tests/<folder>/test_<name>.py)."""
    src = ROOT / "packages" / package / "src" / f"lorebase_{package}"
    tests = ROOT / "packages" / package / "tests"
    modules = [
        p for p in src.rglob("*.py") if p.name != "__init__.py" and "__pycache__" not in p.parts
    ]
    missing = []
    for module in modules:
        relative = module.relative_to(src)
        if not (tests / relative.parent / f"test_{module.name}").exists():
            missing.append(relative.as_posix())
    return len(modules) - len(missing), len(modules), sorted(missing)


def longest_chain(package: str) -> list[str]:
    import grimp

    graph = grimp.build_graph(package)
    modules = sorted(graph.modules)
    best: dict[str, list[str]] = {}

    def chain(module: str, seen: frozenset[str]) -> list[str]:
        if module in best:
            return best[module]
        longest: list[str] = []
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported.startswith(package) and imported not in seen:
                candidate = chain(imported, seen | {imported})
                if len(candidate) > len(longest):
                    longest = candidate
        best[module] = [module, *longest]
        return best[module]

    sys.setrecursionlimit(10_000)
    return max((chain(m, frozenset({m})) for m in modules), key=len)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--functions", type=int, default=15, help="how many long functions to list")
    args = parser.parse_args()
    files = python_files()
    folders = Counter(p.parent.relative_to(ROOT).as_posix() for p in files)
    print("modules per folder (largest):")
    for folder, count in folders.most_common(8):
        print(f"  {count:4d}  {folder}")
    sizes = sorted(
        ((len(p.read_text(encoding="utf-8").splitlines()), p) for p in files), reverse=True
    )
    print("largest modules:")
    for lines, path in sizes[:6]:
        print(f"  {lines:5d}  {path.relative_to(ROOT)}")
    over_60 = long_functions(files, 60)
    over_80 = [f for f in over_60 if f[0] > 80]
    print(f"functions over 60 lines: {len(over_60)}; over 80: {len(over_80)}")
    for length, where in over_60[: args.functions]:
        print(f"  {length:4d}  {where}")
    keeper = [p for p in files if "/lorebase_keeper/" in p.as_posix()]
    anys = sum(len(re.findall(r"\bAny\b", p.read_text(encoding="utf-8"))) for p in keeper)
    print(f"Any in keeper: {anys} (modules: {len(keeper)})")
    found, total, _missing = mirrored("keeper")
    print(f"keeper modules with a mirroring test file: {found} of {total}")
    chain = longest_chain("lorebase_keeper")
    print(f"longest import chain inside keeper: {len(chain)} modules")
    print("  " + " -> ".join(m.removeprefix("lorebase_keeper.") for m in chain))


if __name__ == "__main__":
    main()
