"""The Python of docs/agents.md runs as written, as the demo's agent, against a real Keeper."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lorebase_client import LorebaseClient

if TYPE_CHECKING:
    from conftest import DemoKeeper

ROOT = Path(__file__).resolve().parents[3]
AGENTS = ROOT / "docs" / "agents.md"
PYTHON = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
CONNECT = 'LorebaseClient("http://127.0.0.1:8080", api_key="lbk_...")'


def test_the_python_of_agents_md_runs_as_the_demo_agent(demo_keeper: DemoKeeper) -> None:
    profiles = (demo_keeper.data_home / "lorebase" / "profiles.toml").read_text()
    agent_key = tomllib.loads(profiles)["agent"]["api_key"]
    blocks = PYTHON.findall(AGENTS.read_text(encoding="utf-8"))
    assert len(blocks) >= 3
    code = blocks[0].replace(CONNECT, f"LorebaseClient({demo_keeper.url!r}, api_key={agent_key!r})")
    assert code != blocks[0], f"docs/agents.md connects with {CONNECT}"
    body = "\n".join(blocks[1:])
    # the blocks after the first run inside its `with`
    code += "".join(f"    {line}\n" if line else "\n" for line in body.splitlines())
    names: dict[str, Any] = {}
    exec(compile(code, str(AGENTS), "exec"), names)
    assert names["done"]["status"] == "proposed"
    assert names["answer"]["records"][0]["key"] == "S-1001"
    with LorebaseClient(demo_keeper.url, api_key=agent_key) as client:
        proposal = client.proposal("supply", names["proposal_id"])
    assert proposal["intent"] == "The Q4 delivery audit found two missed delivery dates"
