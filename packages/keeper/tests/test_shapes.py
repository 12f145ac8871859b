"""The `*Json` shapes the answers are built as mirror the models the OpenAPI document publishes.

A route builds its answer as a TypedDict (`RecordSummaryJson`), so mypy checks it where it is
made; the pydantic model of the same name without `Json` (`RecordSummary`) describes it in the
document. These tests keep the two in step: the same members (by their JSON names), and every
member the model requires always present in the TypedDict.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from typing import Any, ForwardRef, is_typeddict

import pytest
from pydantic import BaseModel

import lorebase_keeper.shapes


def _pairs() -> Iterator[Any]:
    package = lorebase_keeper.shapes
    for found in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        module = importlib.import_module(found.name)
        for name, typed in sorted(vars(module).items()):
            if (
                name.endswith("Json")
                and is_typeddict(typed)
                and typed.__module__ == module.__name__
            ):
                model = getattr(module, name.removesuffix("Json"), None)
                yield pytest.param(typed, model, id=f"{found.name.rsplit('.', 1)[-1]}.{name}")


def _optional(typed: Any) -> set[str]:
    """The members a TypedDict may leave out: `total=False`, or `NotRequired[...]` (written as
    a string under `from __future__ import annotations`, which the runtime does not read)."""
    optional = set(typed.__optional_keys__)
    for name, hint in typed.__annotations__.items():
        text = hint.__forward_arg__ if isinstance(hint, ForwardRef) else str(hint)
        if text.startswith(("NotRequired[", "typing.NotRequired[")):
            optional.add(name)
    return optional


PAIRS = list(_pairs())


def test_there_are_json_shapes() -> None:
    assert len(PAIRS) > 20


@pytest.mark.parametrize(("typed", "model"), PAIRS)
def test_a_json_shape_mirrors_its_model(typed: Any, model: Any) -> None:
    assert isinstance(model, type), "no model of that name"
    assert issubclass(model, BaseModel)
    fields = model.model_fields
    members = {field.alias or name for name, field in fields.items()}
    assert set(typed.__annotations__) == members
    required = {field.alias or name for name, field in fields.items() if field.is_required()}
    assert not required & _optional(typed), "a member the model requires may be left out"
