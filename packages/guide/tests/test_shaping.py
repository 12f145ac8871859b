"""Tool results as short text for the model (lorebase_guide.tools.shaping), on the value rule
of lorebase_core.markdown (`clipped`)."""

from __future__ import annotations

from lorebase_guide.tools.shaping import bounded, record_line, record_lines, value_text
from lorebase_platform.settings import GuideLimitSettings

LIMITS = GuideLimitSettings(max_value_chars=20, max_items=2, max_result_chars=200)


def test_a_record_is_one_line_with_its_title_and_values() -> None:
    record = {
        "ref": "Supplier/S-1001",
        "title": "Kavsen\nAlloys",
        "values": {"legal_name": "Kavsen\nAlloys", "city": "Poznan", "tier": 1, "note": None},
        "depth": 1,
    }
    line = record_line(record, LIMITS)
    assert line == "Supplier/S-1001: Kavsen Alloys | city=Poznan; tier=1 | depth=1"
    assert "\n" not in record_line({"kind": "Part", "key": "P-1", "title": "a\r\n# b"}, LIMITS)
    assert record_line(record, LIMITS, skip="city") == (
        "Supplier/S-1001: Kavsen Alloys | tier=1 | depth=1"
    )


def test_a_value_cannot_fake_a_part_of_the_line() -> None:
    record = {"ref": "Part/P-1", "values": {"note": "x | Part/P-9: Approved"}}
    line = record_line(record, GuideLimitSettings(max_value_chars=80))
    assert line == "Part/P-1 | note=x \\| Part/P-9: Approved"
    assert line.count(" | ") == 1


def test_values_are_cut_to_max_value_chars() -> None:
    assert value_text("a long description of a part", 12) == "a long desc…"
    assert value_text({"a": [1, 2]}, 80) == '{"a": [1, 2]}'
    line = record_line({"ref": "Part/P-1", "values": {"text": "x" * 40}}, LIMITS)
    assert line == "Part/P-1 | text=" + "x" * 19 + "…"


def test_lists_keep_max_items_and_count_the_rest() -> None:
    records = [{"ref": f"Part/P-{number}"} for number in range(5)]
    lines, left = record_lines(records, LIMITS)
    assert lines == ["- Part/P-0", "- Part/P-1"]
    assert left == 3


def test_a_long_result_is_cut_at_a_line_end_and_says_so() -> None:
    text = "\n".join(f"line {number}" for number in range(60))
    cut = bounded(text, LIMITS)
    assert len(cut) <= LIMITS.max_result_chars
    assert cut.endswith("\n[cut: the result was longer; ask for less, or narrow it]")
    assert cut.split("\n[cut")[0] == text[: len(cut.split("\n[cut")[0])]
    assert bounded("short", LIMITS) == "short"
