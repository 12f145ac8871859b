"""docs/mcp.md says what the code does: the catalogue, the desktop configuration."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lorebase_herald.catalogue import END, START, markdown, replaced, tools
from lorebase_platform.settings import Settings

DOC = Path(__file__).resolve().parents[3] / "docs" / "mcp.md"

pytestmark = pytest.mark.anyio


async def test_the_catalogue_in_the_docs_is_the_one_of_the_code() -> None:
    document = DOC.read_text()
    generated = replaced(document, markdown(await tools()))
    assert document == generated, (
        "docs/mcp.md is out of date: run `uv run python -m lorebase_herald.catalogue "
        "--write docs/mcp.md`"
    )
    assert document.index(START) < document.index(END)


def test_the_desktop_configuration_names_real_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    block = re.search(r"```json\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert block is not None
    server = json.loads(block.group(1))["mcpServers"]["lorebase"]
    assert server["command"].endswith("lorebase-herald")
    for name, value in server["env"].items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    assert settings.herald.keeper.api_key == server["env"]["LOREBASE__HERALD__KEEPER__API_KEY"]
    assert settings.herald.trace.opt_in is True
