"""YAML reading without YAML 1.1 surprises.

PyYAML resolves plain scalars by YAML 1.1: `NO` becomes false, `2026-10-01` a date, `010` the
octal 8 and `1:30` the sexagesimal 90. Schemas and import files are read with YAML 1.2's core
rules instead: only true/false are booleans, numbers are decimal, everything else is a string.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_REPLACED = {
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
}


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core resolution of booleans and numbers, and no timestamps."""


_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _REPLACED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789")
)
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+.0123456789"),
)


def _construct_decimal_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    return int(str(loader.construct_scalar(node)))


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_decimal_int)


def parse_yaml(text: str) -> Any:
    """Parse one YAML document; raises `yaml.YAMLError` with the position of a syntax error."""
    return yaml.load(text, Loader=_StrictLoader)
