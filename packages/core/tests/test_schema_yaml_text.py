"""YAML reading without YAML 1.1 surprises (schema/yaml_text.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml

from lorebase_core.schema import Schema, load_schema
from lorebase_core.schema.yaml_text import parse_yaml

Mutation = Callable[[dict[str, Any]], None]
Loads = Callable[[Mutation], Schema]


@pytest.mark.parametrize(
    "word",
    ["NO", "No", "no", "YES", "Yes", "yes", "y", "n", "Y", "N", "on", "off", "ON", "Off"],
)
def test_yaml_11_boolean_words_stay_strings(word: str) -> None:
    assert parse_yaml(f"value: {word}") == {"value": word}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("true", True, id="true"),
        pytest.param("True", True, id="True"),
        pytest.param("TRUE", True, id="TRUE"),
        pytest.param("false", False, id="false"),
        pytest.param("False", False, id="False"),
        pytest.param("FALSE", False, id="FALSE"),
    ],
)
def test_true_and_false_are_booleans(text: str, expected: bool) -> None:
    assert parse_yaml(f"value: {text}") == {"value": expected}


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("2024-03-01", id="date"),
        pytest.param("2024-03-01T10:00:00Z", id="datetime"),
        pytest.param("2024-03-01 10:00:00+02:00", id="datetime-space"),
        pytest.param("2001-12-14t21:59:43.10-05:00", id="yaml-timestamp"),
    ],
)
def test_dates_stay_strings(text: str) -> None:
    assert parse_yaml(f"value: {text}") == {"value": text}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("42", 42, id="int"),
        pytest.param("-7", -7, id="negative"),
        pytest.param("2.5", 2.5, id="float"),
        pytest.param("~", None, id="tilde"),
        pytest.param("null", None, id="null"),
        pytest.param("'NO'", "NO", id="quoted"),
        pytest.param("[NO, yes, 2024-01-01]", ["NO", "yes", "2024-01-01"], id="flow-list"),
    ],
)
def test_other_scalars(text: str, expected: object) -> None:
    assert parse_yaml(f"value: {text}") == {"value": expected}


@pytest.mark.parametrize(
    ("text", "expected"),
    [pytest.param("1:30", "1:30", id="sexagesimal"), pytest.param("010", 10, id="octal")],
)
def test_yaml_11_number_forms(text: str, expected: object) -> None:
    assert parse_yaml(f"value: {text}") == {"value": expected}


def test_python_tags_are_refused() -> None:
    with pytest.raises(yaml.YAMLError):
        parse_yaml("value: !!python/object/apply:os.system ['true']")


def test_syntax_error_gives_its_position() -> None:
    with pytest.raises(yaml.YAMLError, match="line 2"):
        parse_yaml("a: [1, 2\nb: 3")


def test_parse_yaml_does_not_change_the_safe_loader() -> None:
    assert yaml.safe_load("value: NO") == {"value": False}


# --- in a schema -----------------------------------------------------------------------------


def test_enum_values_that_yaml_11_reads_as_booleans_stay_names(loads: Loads) -> None:
    def mutate(document: dict[str, Any]) -> None:
        document["kinds"]["Part"]["attributes"]["answer"] = {
            "type": "enum",
            "values": ["yes", "no"],
        }

    schema_text = """\
domain: {name: answers}
kinds:
  Country:
    key: code
    attributes:
      code: {type: enum, values: [NO, SE, DK, Y, N, ON, OFF]}
      joined: {type: date, min: 1990-01-01, max: 2099-12-31}
"""
    schema = load_schema(schema_text)
    code = schema.kind("Country").attributes["code"]
    assert code.values == ("NO", "SE", "DK", "Y", "N", "ON", "OFF")
    joined = schema.kind("Country").attributes["joined"]
    assert (joined.min, joined.max) == ("1990-01-01", "2099-12-31")
    assert loads(mutate).kind("Part").attributes["answer"].values == ("yes", "no")


def test_unquoted_no_domain_name_is_a_string() -> None:
    schema = load_schema(
        "domain: {name: no}\nkinds: {Thing: {key: id, attributes: {id: {type: string}}}}\n"
    )
    assert schema.domain.name == "no"
