"""Write the sync client (lorebase_client/_sync) from the async one (lorebase_client/_async).

    .venv/bin/python scripts/unasync.py          # rewrite _sync/ (make unasync)
    .venv/bin/python scripts/unasync.py --check  # exit 1 with a diff when _sync/ is out of step

The async client is the source: every module of `_async/` but its `__init__.py` becomes the
module of the same name in `_sync/`, line by line through the replacements of `SUBSTITUTIONS`
(`async def` -> `def`, `await x` -> `x`, `AsyncLorebaseClient` -> `LorebaseClient` ...), then
sorted and formatted by ruff with the repository's settings, so the result passes `make lint`
as written. This is what httpcore does (its scripts/unasync.py). `make lint` runs the check and
packages/client/tests/test_unasync.py tests it; a change to the client is made in `_async/`
and `make unasync` writes its twin.
"""

from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "packages" / "client" / "src" / "lorebase_client"
RUFF_CONFIG = ROOT / "pyproject.toml"
HEADER = "# generated from _async/{name} by scripts/unasync.py; do not edit\n"

SUBSTITUTIONS: tuple[tuple[str, str], ...] = (
    (r"\blorebase_client\._async\b", "lorebase_client._sync"),
    (r"\bAsync([A-Z]\w*)", r"\1"),  # AsyncLorebaseClient, httpx.AsyncClient, AsyncIterator ...
    (r"\basync def\b", "def"),
    (r"\basync with\b", "with"),
    (r"\basync for\b", "for"),
    (r"\bawait ", ""),
    (r"\bAwaitable\[(\w+)\]", r"\1"),
    (r"\b__aenter__\b", "__enter__"),
    (r"\b__aexit__\b", "__exit__"),
    (r"\baclose\b", "close"),
    (r"\baread\b", "read"),
    (r"\baiter_lines\b", "iter_lines"),
    (r"\bimport asyncio\b", "import time"),
    (r"\basyncio\.sleep\b", "time.sleep"),
)
"""Line by line, in order: a regular expression and what replaces it."""

WHOLE_TEXT: tuple[tuple[str, str], ...] = (
    # an async generator cannot `yield from`; ruff wants the sync one to (UP028)
    (r"for (\w+) in (.+):\n[ \t]+yield \1\n", r"yield from \2\n"),
)
"""Replacements across lines, after those of `SUBSTITUTIONS`."""


def unasync_text(source: str) -> tuple[str, set[str]]:
    """The sync text of an async module, and the patterns that changed something."""
    used: set[str] = set()
    lines = []
    for line in source.splitlines(keepends=True):
        for pattern, replacement in SUBSTITUTIONS:
            line, count = re.subn(pattern, replacement, line)
            if count:
                used.add(pattern)
        lines.append(line)
    text = "".join(lines)
    for pattern, replacement in WHOLE_TEXT:
        text, count = re.subn(pattern, replacement, text)
        if count:
            used.add(pattern)
    return text, used


def ruff(arguments: list[str], text: str, path: Path) -> str:
    """`text` through ruff with the repository's settings, as if it were the file `path`."""
    command = [sys.executable, "-m", "ruff", *arguments, "--config", str(RUFF_CONFIG)]
    command += ["--stdin-filename", str(path), "-"]
    done = subprocess.run(command, input=text, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"ruff {' '.join(arguments)} failed on {path}:\n{done.stderr}")
    return done.stdout


def generate(source: Path, target: Path) -> tuple[str, set[str]]:
    """The text of the sync module `target` written from the async module `source`."""
    text, used = unasync_text(source.read_text(encoding="utf-8"))
    text = HEADER.format(name=source.name) + text
    # the renamed imports sort elsewhere, and Awaitable is left unused
    text = ruff(["check", "--fix", "--exit-zero", "--quiet", "--select", "I,F401"], text, target)
    return ruff(["format"], text, target), used


def sources(package: Path) -> list[Path]:
    """The async modules that have a sync twin: all of `_async/` but `__init__.py`."""
    return sorted(path for path in (package / "_async").glob("*.py") if path.name != "__init__.py")


def stale(package: Path) -> list[Path]:
    """Modules of `_sync/` whose async source is gone."""
    names = {path.name for path in sources(package)} | {"__init__.py"}
    return sorted(path for path in (package / "_sync").glob("*.py") if path.name not in names)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when _sync/ is out of step")
    parser.add_argument(
        "--package", type=Path, default=PACKAGE, help="the lorebase_client folder to work on"
    )
    options = parser.parse_args(argv)
    package: Path = options.package
    used: set[str] = set()
    out_of_step = []
    for source in sources(package):
        target = package / "_sync" / source.name
        text, used_here = generate(source, target)
        used |= used_here
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if text == current:
            continue
        out_of_step.append(target)
        if options.check:
            name = f"_sync/{target.name}"
            diff = difflib.unified_diff(
                current.splitlines(keepends=True),
                text.splitlines(keepends=True),
                f"{name} (committed)",
                f"{name} (generated from _async/{source.name})",
            )
            sys.stdout.writelines(diff)
        else:
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target.relative_to(package.parent)}")
    unused = [p for p, _ in (*SUBSTITUTIONS, *WHOLE_TEXT) if p not in used]
    if unused:
        print(f"scripts/unasync.py: patterns that replace nothing (remove them): {unused}")
        return 1
    left = stale(package)
    for path in left:
        print(f"{path.relative_to(package.parent)} has no source in _async/: remove it")
    if options.check and out_of_step:
        names = ", ".join(f"_sync/{path.name}" for path in out_of_step)
        print(f"{names} out of step with _async/: run `make unasync`")
    return 1 if left or (options.check and out_of_step) else 0


if __name__ == "__main__":
    sys.exit(main())
