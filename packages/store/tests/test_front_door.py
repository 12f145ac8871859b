"""The store's front door: `lorebase_store` exports what other packages use, and they use only it."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from pathlib import Path

import lorebase_store

ROOT = Path(__file__).resolve().parents[3]
SUBMODULE_IMPORT = re.compile(r"^\s*(?:from|import) lorebase_store\.(?!testing\b)[\w.]+", re.M)


def test_every_exported_name_exists() -> None:
    missing = [name for name in lorebase_store.__all__ if not hasattr(lorebase_store, name)]
    assert missing == []
    assert len(set(lorebase_store.__all__)) == len(lorebase_store.__all__)


def test_code_outside_the_store_imports_only_the_front_door() -> None:
    # import-linter checks the packages; this also covers bench/, scripts/ and conftest.py.
    outside = [
        path
        for path in ROOT.rglob("*.py")
        if not path.is_relative_to(ROOT / "packages" / "store")
        and not any(part.startswith(".") for part in path.relative_to(ROOT).parts)
    ]
    assert len(outside) > 10
    offenders = [
        f"{path.relative_to(ROOT)}: {match.group().strip()}"
        for path in outside
        for match in SUBMODULE_IMPORT.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_dataclasses_of_more_than_five_fields_are_keyword_only() -> None:
    # A positional call to a class of six or more fields fills them in the wrong order unnoticed.
    positional = []
    for info in pkgutil.walk_packages(lorebase_store.__path__, "lorebase_store."):
        if info.name.startswith("lorebase_store.migrations"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and dataclasses.is_dataclass(value)
                and value.__module__ == module.__name__
            ):
                fields = [f for f in dataclasses.fields(value) if f.init]
                if len(fields) > 5 and not all(f.kw_only for f in fields):
                    positional.append(f"{module.__name__}.{value.__name__}")
    assert positional == []
