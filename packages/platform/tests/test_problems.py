"""Problem documents render whatever the caller's text they quote holds (problems.py)."""

from __future__ import annotations

import json
import math

from lorebase_core.errors import InvalidText, Issue
from lorebase_platform.problems import (
    RENDERED_CHARS,
    printable,
    problem,
    problem_document,
    render_problem,
)


def test_a_problem_quoting_lone_surrogates_renders_as_utf8() -> None:
    error = InvalidText(
        "Kind 'a\ud800b' does not exist", [Issue("where.\udfff", "bad", "lone-surrogate")]
    )
    rendered = render_problem(problem_document(error, instance="/api/v1/x\ud800"))
    document = json.loads(rendered.decode("utf-8"))
    assert document["detail"] == "Kind 'a\ufffdb' does not exist"
    assert document["issues"] == [
        {"path": "where.\ufffd", "message": "bad", "code": "lone-surrogate"}
    ]
    assert document["instance"] == "/api/v1/x\ufffd"
    assert document["code"] == "invalid-text"


def test_printable_keeps_fine_text_pairs_and_nul_and_writes_what_json_cannot() -> None:
    assert printable("seal \U0001f600 \x00") == "seal \U0001f600 \x00"
    assert printable({"\ud83d": ["\ud83d\ude00"]}) == {"\ufffd": ["\U0001f600"]}
    assert printable({"n": math.nan, "t": (1, None), "o": object}) == {
        "n": "nan",
        "t": [1, None],
        "o": "<class 'object'>",
    }
    assert json.loads(render_problem({"detail": "a\x00b", "n": math.inf})) == {
        "detail": "a\x00b",
        "n": "inf",
    }


def test_render_problem_bounds_every_string() -> None:
    document = {"detail": "a" * 1_000_000, "instance": "/x", "missing": ["b" * 5000]}
    rendered = json.loads(render_problem(document))
    assert rendered["detail"] == f"{'a' * RENDERED_CHARS}… (1000000 characters)"
    assert rendered["missing"] == [f"{'b' * RENDERED_CHARS}… (5000 characters)"]
    assert rendered["instance"] == "/x"


def test_a_framework_problem_caps_its_issues() -> None:
    document = problem(
        422,
        "invalid-input",
        "Invalid input",
        "many",
        issues=[Issue(str(n), "bad") for n in range(999)],
    )
    assert len(document["issues"]) == 51
    assert document["issues"][-1]["code"] == "more-issues"
