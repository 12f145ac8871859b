"""Every reference in README.md and docs/*.md names a file (and heading) of the repository.

Three kinds of reference are checked:

- Markdown links `[text](target)` that are not URLs: the target resolves from the file that
  holds it, as GitHub renders it, and its `#anchor`, if any, is a heading of the target;
- documents named in the text (`auth.md`, `docs/writes.md`, `examples/supply/README.md`): from
  the file's folder or from the repository root;
- repository paths in backticks (`config/lorebase.example.yaml`, `scripts/security.py`): from
  the root. Placeholders (`<Kind>`, `*`, `{...}`, `...`) are not paths and are skipped.

The README's layout table lists every document of docs/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"
DOCUMENTS = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
NAMED = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)(?![\w/])")
CODE_PATH = re.compile(r"`((?:packages|docs|examples|config|scripts|bench|\.ci)/[^`\s]*)`")
PLACEHOLDER = re.compile(r"[<>*{}]|\.\.\.")
FENCE = re.compile(r"^(```|~~~)")


def prose(text: str) -> str:
    """`text` without its fenced blocks (commands and their output are not references)."""
    kept: list[str] = []
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(line)
    return "\n".join(kept)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    counts: dict[str, int] = {}
    for line in prose(path.read_text(encoding="utf-8")).splitlines():
        if match := re.match(r"^#{1,6}\s+(.*?)\s*#*$", line):
            base = slug(match.group(1))
            seen = counts.get(base, 0)
            found.add(base if seen == 0 else f"{base}-{seen}")
            counts[base] = seen + 1
    return found


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_link_resolves(document: Path) -> None:
    text = prose(document.read_text(encoding="utf-8"))
    broken: list[str] = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
            continue  # a URL (https:, mailto:)
        file_part, _, anchor = target.partition("#")
        resolved = (document.parent / file_part).resolve() if file_part else document
        if not resolved.exists():
            broken.append(f"{target}: no file {resolved.relative_to(ROOT)}")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading #{anchor} in {resolved.relative_to(ROOT)}")
    assert not broken, f"{document.relative_to(ROOT)}: " + "; ".join(broken)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_named_document_and_path_exists(document: Path) -> None:
    text = prose(document.read_text(encoding="utf-8"))
    missing: list[str] = []
    for name in NAMED.findall(text):
        if not ((document.parent / name).exists() or (ROOT / name).exists()):
            missing.append(name)
    for path in CODE_PATH.findall(text):
        if not PLACEHOLDER.search(path) and not (ROOT / path.rstrip("/.,")).exists():
            missing.append(path)
    assert not missing, f"{document.relative_to(ROOT)} names what does not exist: {missing}"


def test_the_readme_layout_lists_every_document() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme.split("## Layout", 1)[1].split("\n## ", 1)[0]
    unlisted = [path.name for path in sorted(DOCS.glob("*.md")) if path.name not in layout]
    assert not unlisted, f"README.md's layout table leaves out {unlisted}"


def test_the_checks_find_what_is_broken(tmp_path: Path) -> None:
    assert slug("Auth mode `none` listens on loopback only") == (
        "auth-mode-none-listens-on-loopback-only"
    )
    assert slug("1. Start the demo") == "1-start-the-demo"
    assert "review-protected-branches-and-review-policies" in anchors(DOCS / "writes.md")
    assert LINK.findall("[a](b.md#c) ![img](x.png) [u](https://x.y)") == ["b.md#c", "https://x.y"]
    assert NAMED.findall("see `auth.md`, docs/writes.md and https://x.y/z.md.") == [
        "auth.md",
        "docs/writes.md",
    ]
    assert prose("a\n```sh\nnot.md\n```\nb") == "a\nb"
