"""docs/client.md shows the current --help of every client command."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "generate_cli_docs.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_cli_docs", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_client_md_shows_the_current_help() -> None:
    generator = _generator()
    current = generator.DOCS.read_text(encoding="utf-8")
    assert generator.updated(current) == current, (
        "docs/client.md is out of date: run .venv/bin/python scripts/generate_cli_docs.py"
    )


def test_every_client_command_is_documented() -> None:
    generator = _generator()
    text = generator.DOCS.read_text(encoding="utf-8")
    paths = [" ".join(path) for path in generator.command_paths()]
    assert "record explain" in paths
    assert "branch create" in paths
    for path in paths:
        assert f"### `lorebase {path}`" in text
        assert f"Usage: lorebase {path} " in text
