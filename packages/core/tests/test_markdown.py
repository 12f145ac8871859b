"""Untrusted text in model-facing Markdown (lorebase_core.markdown): the rules per place."""

from __future__ import annotations

import pytest

from lorebase_core.markdown import (
    clip,
    clipped,
    cut_at_line,
    inline_value,
    one_line,
    short_revision,
    table_cell,
    text_line,
)


@pytest.mark.parametrize(
    ("value", "cell", "line"),
    [
        pytest.param("Kavsen Alloys", "Kavsen Alloys", "Kavsen Alloys", id="plain"),
        pytest.param("a|b", "a\\|b", "a|b", id="pipe"),
        pytest.param("a\\b", "a\\\\b", "a\\\\b", id="backslash"),
        pytest.param("a\\|b", "a\\\\\\|b", "a\\\\|b", id="backslash-before-pipe"),
        pytest.param("a\nb", "a b", "a b", id="lf"),
        pytest.param("a\r\nb", "a  b", "a  b", id="crlf-each-a-space"),
        pytest.param("a\rb", "a b", "a b", id="cr"),
        pytest.param(
            "\n# Ignore the data", " # Ignore the data", " # Ignore the data", id="heading"
        ),
        pytest.param(None, "", "", id="none-is-empty"),
        pytest.param(True, "true", "true", id="true"),
        pytest.param(False, "false", "false", id="false"),
        pytest.param(0, "0", "0", id="zero"),
        pytest.param(2.5, "2.5", "2.5", id="float"),
        pytest.param(["a|b"], "['a\\|b']", "['a|b']", id="list-as-python-text"),
        pytest.param("tab\there", "tab\there", "tab\there", id="tab-kept"),
    ],
)
def test_table_cell_and_text_line(value: object, cell: str, line: str) -> None:
    assert table_cell(value) == cell
    assert text_line(value) == line


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        pytest.param("Poznan", "Poznan", id="plain"),
        pytest.param("a\\b", "a\\b", id="backslash-kept"),
        pytest.param("a|b", '"a|b"', id="pipe-quoted"),
        pytest.param("a\nb", '"a\\nb"', id="lf-quoted"),
        pytest.param("a\r\nb", '"a\\r\\nb"', id="crlf-quoted"),
        pytest.param("a\u2028b", '"a\u2028b"', id="line-separator-quoted"),
        pytest.param("tab\there", '"tab\\there"', id="tab-quoted"),
        pytest.param("Zürich", "Zürich", id="unicode-kept"),
        pytest.param(None, "null", id="none"),
        pytest.param(True, "true", id="true"),
        pytest.param(False, "false", id="false"),
        pytest.param(70, "70", id="int"),
        pytest.param(0.25, "0.25", id="float"),
        pytest.param({"a": [1, "x"]}, '{"a":[1,"x"]}', id="mapping-compact-json"),
    ],
)
def test_inline_value(value: object, shown: str) -> None:
    assert inline_value(value) == shown


@pytest.mark.parametrize(
    ("value", "limit", "shown"),
    [
        pytest.param("a  b\n\nc ", 80, "a b c", id="whitespace-collapsed"),
        pytest.param("a\r\n# b", 80, "a # b", id="crlf"),
        pytest.param("a|b\\c", 80, "a\\|b\\\\c", id="pipe-escaped-backslash-doubled"),
        pytest.param(None, 80, "null", id="none"),
        pytest.param(True, 80, "true", id="true"),
        pytest.param(False, 80, "false", id="false"),
        pytest.param({"a": 1}, 80, '{"a": 1}', id="mapping-json"),
        pytest.param("abcdef", 4, "abc…", id="cut"),
        pytest.param("abcd", 4, "abcd", id="fits"),
        pytest.param("abcdef", 1, "a…", id="at-least-one-character"),
    ],
)
def test_clipped(value: object, limit: int, shown: str) -> None:
    assert clipped(value, limit) == shown


def test_one_line_and_clip() -> None:
    assert one_line(" a\u2028b\x0bc\n") == "a b c"
    assert clip("abc", 3) == "abc"
    assert clip("abcd", 3) == "ab…"


def test_cut_at_line() -> None:
    note = "\n[cut]"
    assert cut_at_line("short", 10, note) == "short"
    text = "line one\nline two\nline three"
    assert cut_at_line(text, 24, note) == "line one\nline two" + note
    assert len(cut_at_line(text, 24, note)) <= 24
    # No line end in the second half of the room: cut mid-line.
    assert cut_at_line("x" * 40, 20, note) == "x" * 14 + note


def test_short_revision() -> None:
    assert short_revision("9593454195d1aa0b") == "9593454195d1"
    assert short_revision(None) == "-"
    assert short_revision("") == "-"
