"""YAML reading without YAML 1.1 surprises: `NO` stays the string "NO", dates stay strings."""

from __future__ import annotations

import re
from typing import Any

import yaml


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader where only true/false are booleans and timestamps are left as text."""


_StrictLoader.yaml_implicit_resolvers = {
    first: [
        (tag, regexp)
        for tag, regexp in resolvers
        if tag not in {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp"}
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def parse_yaml(text: str) -> Any:
    """Parse one YAML document; raises `yaml.YAMLError` with the position of a syntax error."""
    return yaml.load(text, Loader=_StrictLoader)
