"""docs/tutorial.md, run as written: every command of its `console` blocks, in order, in one shell.

The `demo_keeper` fixture stands in for `make demo` (the tutorial's `sh` blocks are not run): the supply
example and the demo's principals, their profiles in the data directory, Keeper on a free
loopback port. Then each `$ ` line (with its `\\` continuation lines) runs in one bash process,
so variables carry from one command to the next, with the data directory and the PATH of this
environment. Its output (stdout and stderr) must match the lines the tutorial shows under it,
where `...` stands for any text, as in doctest; a command whose shown output starts with
`error:` must exit with 1, every other one with 0.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lorebase_keeper.cli.demo import DEMO_PRINCIPALS, DemoProfile, demo_instructions

if TYPE_CHECKING:
    from conftest import DemoKeeper

ROOT = Path(__file__).resolve().parents[3]
TUTORIAL = ROOT / "docs" / "tutorial.md"
FENCE = re.compile(r"^```(\S*)")
SHELL_BLOCKS = {"sh", "bash", "shell"}
NOT_RUN = {
    "make demo": "the demo_keeper fixture sets up the same, on a free port",
    "source .venv/bin/activate": "the test puts the bin directory of its environment on PATH",
    "rm -rf ~/.local/share/lorebase": "starting over would remove the fixture's data",
}
"""The commands of `sh` blocks, which the test does not run, and what stands in for each."""


@dataclass(frozen=True)
class Step:
    line: int
    """Where the command starts in docs/tutorial.md (1-based)."""
    command: str
    expected: str


def fenced_blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """(info string, line of the first content line, lines) of every fenced block."""
    blocks: list[tuple[str, int, list[str]]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opened = FENCE.match(lines[index])
        index += 1
        if opened is None:
            continue
        start, content = index + 1, []
        while not lines[index].startswith("```"):
            content.append(lines[index])
            index += 1
        index += 1
        blocks.append((opened.group(1), start, content))
    return blocks


def console_steps(start: int, lines: list[str]) -> list[Step]:
    """The commands of one `console` block and the output shown under each."""
    steps: list[Step] = []
    index = 0
    while index < len(lines):
        first = index
        if not lines[index].startswith("$ "):
            raise AssertionError(f"docs/tutorial.md:{start + index}: output before any command")
        command = [lines[index][2:]]
        # a line ending in a backslash, or inside a single-quoted string, goes on
        while command[-1].endswith("\\") or "\n".join(command).count("'") % 2:
            index += 1
            command.append(lines[index])
        index += 1
        expected: list[str] = []
        while index < len(lines) and not lines[index].startswith("$ "):
            expected.append(lines[index])
            index += 1
        steps.append(Step(start + first, "\n".join(command), "\n".join(expected)))
    return steps


def tutorial_steps() -> list[Step]:
    steps: list[Step] = []
    for info, start, lines in fenced_blocks(TUTORIAL.read_text(encoding="utf-8")):
        if info == "console":
            steps += console_steps(start, lines)
    return steps


def _clean(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()).strip("\n")


def shows(expected: str, actual: str) -> bool:
    """Whether `actual` is what `expected` shows, `...` standing for any text."""
    pattern = ".*?".join(re.escape(part) for part in _clean(expected).split("..."))
    return re.fullmatch(pattern, _clean(actual), re.DOTALL) is not None


def test_the_tutorial_shows_what_its_commands_print(
    demo_keeper: DemoKeeper, tmp_path: Path
) -> None:
    steps = tutorial_steps()
    assert len(steps) >= 10
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    script = ["set -o pipefail", f"cd {ROOT}"]
    for number, step in enumerate(steps):
        script += [
            "{",
            step.command,
            f'}} >"{outputs}/{number}.out" 2>&1',
            f'echo $? >"{outputs}/{number}.rc"',
        ]
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("LOREBASE")
    }
    environment.update(
        {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": str(tmp_path),
            "XDG_DATA_HOME": str(demo_keeper.data_home),
            "LOREBASE_CONFIG": "",
        }
    )
    subprocess.run(
        ["bash", "-c", "\n".join(script)],
        env=environment,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    for number, step in enumerate(steps):
        where = f"docs/tutorial.md:{step.line}: $ {step.command}"
        status = int((outputs / f"{number}.rc").read_text())
        actual = (outputs / f"{number}.out").read_text(encoding="utf-8")
        assert shows(step.expected, actual), f"{where}\nprinted:\n{actual}"
        wanted = 1 if _clean(step.expected).startswith("error:") else 0
        assert status == wanted, f"{where}\nexited with {status}:\n{actual}"


def test_the_commands_it_does_not_run_are_the_demo_and_starting_over() -> None:
    commands = [
        line
        for info, _, lines in fenced_blocks(TUTORIAL.read_text(encoding="utf-8"))
        if info in SHELL_BLOCKS
        for line in lines
        if line.strip() and not line.startswith("#")
    ]
    assert commands, "the tutorial starts with `make demo` in an sh block"
    assert set(commands) <= set(NOT_RUN), "run them in a console block, or say why not"
    recipe = (ROOT / "Makefile").read_text().split("\ndemo:")[1].split("\n\n")[0]
    assert "lorebase import examples/supply" in recipe
    assert "lorebase demo" in recipe  # what demo_keeper sets up: setup_demo


@pytest.mark.parametrize(
    ("expected", "actual", "matched"),
    [
        pytest.param("a\n...\nd", "a\nb\nc\nd", True, id="lines"),
        pytest.param('"id": "prp_..."', '"id": "prp_01X"', True, id="inline"),
        pytest.param("a\nd", "a\nb\nd", False, id="missing-ellipsis"),
        pytest.param("", "", True, id="nothing"),
        pytest.param("", "output", False, id="unexpected-output"),
    ],
)
def test_shown_output_matches_like_doctest(expected: str, actual: str, matched: bool) -> None:
    assert shows(expected, actual) is matched


def test_the_demo_output_it_shows_is_what_the_demo_prints() -> None:
    shown = next(
        lines
        for info, _, lines in fenced_blocks(TUTORIAL.read_text(encoding="utf-8"))
        if info == "text"
    )
    made = [DemoProfile(principal, "lbk_...", key_reused=False) for principal in DEMO_PRINCIPALS]
    path = Path("/home/you/.local/share/lorebase/profiles.toml")
    printed = demo_instructions(made, path, url="http://127.0.0.1:8080").splitlines()
    table = [line for line in shown if line.startswith("  ")]
    assert len(table) == 4
    assert [line for line in table if line not in printed] == []
    assert printed[0] in shown
