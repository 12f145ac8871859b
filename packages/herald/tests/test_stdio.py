"""`lorebase-herald` started over stdio as a desktop MCP client starts it: a command, a
settings file, nothing else."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml
from mcp import Client, StdioServerParameters

from lorebase_keeper.testing import wait_for_session

from .conftest import LiveKeeper, text_of

pytestmark = pytest.mark.anyio

COMMAND = Path(sys.executable).with_name("lorebase-herald")


def config_file(tmp_path: Path, keeper: LiveKeeper, **herald: object) -> Path:
    path = tmp_path / "lorebase.yaml"
    section = {"keeper": {"base_url": keeper.url, "api_key": keeper.key_ref("agent")}, **herald}
    path.write_text(yaml.safe_dump({"herald": section}))
    return path


async def test_the_console_script_serves_the_tools_over_stdio(
    tmp_path: Path, keeper: LiveKeeper
) -> None:
    config = config_file(tmp_path, keeper, trace={"session_id": "desktop-1", "opt_in": True})
    server = StdioServerParameters(
        command=str(COMMAND),
        args=["--config", str(config)],
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
    )
    async with Client(server) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        result = await client.call_tool(
            "lorebase_record", {"domain": "supply", "kind": "Part", "key": "P-10028"}
        )
    assert "lorebase_execute" in names
    assert not result.is_error, text_of(result)
    assert "Radial shaft seal 25x42x7" in text_of(result)
    traced = wait_for_session(keeper.store, "svc_agent", "desktop-1", 1)
    assert traced.steps[0].tool == "lorebase_record"


async def test_a_read_only_herald_over_stdio_has_no_write_tools(
    tmp_path: Path, keeper: LiveKeeper
) -> None:
    config = config_file(tmp_path, keeper)
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "lorebase_herald", "--config", str(config), "--read-only"],
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
    )
    async with Client(server) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
    assert "lorebase_execute" not in names
    assert "lorebase_record" in names


def test_a_key_written_in_the_settings_file_is_refused(tmp_path: Path, keeper: LiveKeeper) -> None:
    import subprocess

    path = tmp_path / "lorebase.yaml"
    path.write_text(yaml.safe_dump({"herald": {"keeper": {"api_key": "lbk_literal"}}}))
    done = subprocess.run(
        [str(COMMAND), "--config", str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert "secret://" in done.stderr
    assert "lbk_literal" not in done.stderr
