"""Record keys and references (docs/schema.md, "Keys and references")."""

from __future__ import annotations

import pytest

from lorebase_core.errors import BadRequest
from lorebase_core.refs import RecordRef, join_key, split_key


@pytest.mark.parametrize(
    ("parts", "key"),
    [
        pytest.param(["S-1001"], "S-1001", id="single"),
        pytest.param(["a,b"], "a,b", id="single-with-comma-is-the-value"),
        pytest.param(["100%"], "100%", id="single-with-percent-is-the-value"),
        pytest.param(["S-1001", "42"], "S-1001,42", id="two"),
        pytest.param(["a", "b", "c"], "a,b,c", id="three"),
        pytest.param(["a,b", "c"], "a%2Cb,c", id="comma-escaped"),
        pytest.param(["50%", "x"], "50%25,x", id="percent-escaped"),
        pytest.param(["%2C", "x"], "%252C,x", id="escape-text-escaped"),
        pytest.param(["%,", ",%"], "%25%2C,%2C%25", id="both"),
        pytest.param(["", "x"], ",x", id="empty-part"),
        pytest.param(["", ""], ",", id="two-empty-parts"),
    ],
)
def test_join_key(parts: list[str], key: str) -> None:
    assert join_key(parts) == key
    assert split_key(key, len(parts)) == parts


@pytest.mark.parametrize(
    "parts",
    [
        pytest.param(["a,b", "c,d"], id="commas"),
        pytest.param(["%25", "%2C"], id="escapes-as-values"),
        pytest.param(["%252C", "%%"], id="double-escapes"),
        pytest.param(["a%2", "C,b"], id="split-escape"),
        pytest.param([",", ",", ","], id="only-commas"),
        pytest.param(["Zürich", "日本"], id="unicode"),
        pytest.param(["/", "a/b"], id="slashes"),
    ],
)
def test_join_and_split_round_trip(parts: list[str]) -> None:
    key = join_key(parts)
    assert key.count(",") == len(parts) - 1
    assert split_key(key, len(parts)) == parts


def test_split_single_part_is_the_key_itself() -> None:
    assert split_key("a,b%2C", 1) == ["a,b%2C"]


@pytest.mark.parametrize(
    ("key", "size"),
    [
        pytest.param("a", 2, id="too-few"),
        pytest.param("a,b,c", 2, id="too-many"),
        pytest.param("a%2Cb", 2, id="escaped-comma-is-not-a-separator"),
    ],
)
def test_split_key_refuses_the_wrong_number_of_parts(key: str, size: int) -> None:
    with pytest.raises(BadRequest, match=f"should have {size} parts"):
        split_key(key, size)


# --- RecordRef -------------------------------------------------------------------------------


def test_record_ref_is_kind_slash_key() -> None:
    ref = RecordRef("Supplier", "S-1001")
    assert str(ref) == "Supplier/S-1001"
    assert RecordRef.parse("Supplier/S-1001") == ref


@pytest.mark.parametrize(
    ("text", "kind", "key"),
    [
        pytest.param("Supplier/S-1001", "Supplier", "S-1001", id="doc-example"),
        pytest.param("Contract/S-1001,42", "Contract", "S-1001,42", id="composite-key"),
        pytest.param("Doc/a/b", "Doc", "a/b", id="slash-in-key"),
        pytest.param("Part/a%2Cb,c", "Part", "a%2Cb,c", id="escapes-kept"),
    ],
)
def test_record_ref_parse(text: str, kind: str, key: str) -> None:
    ref = RecordRef.parse(text)
    assert (ref.kind, ref.key) == (kind, key)
    assert str(ref) == text


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Supplier", id="no-slash"),
        pytest.param("/S-1001", id="no-kind"),
        pytest.param("Supplier/", id="no-key"),
        pytest.param("", id="empty"),
        pytest.param("/", id="slash-only"),
    ],
)
def test_record_ref_parse_refuses(text: str) -> None:
    with pytest.raises(BadRequest, match="is not a Record reference"):
        RecordRef.parse(text)


def test_record_refs_are_ordered_and_hashable() -> None:
    refs = [RecordRef("Supplier", "S-2"), RecordRef("Part", "P-1"), RecordRef("Supplier", "S-1")]
    assert sorted(refs) == [
        RecordRef("Part", "P-1"),
        RecordRef("Supplier", "S-1"),
        RecordRef("Supplier", "S-2"),
    ]
    assert len({*refs, RecordRef("Part", "P-1")}) == 3


def test_record_ref_is_frozen() -> None:
    ref = RecordRef("Supplier", "S-1")
    with pytest.raises(AttributeError):
        ref.kind = "Part"  # type: ignore[misc]
