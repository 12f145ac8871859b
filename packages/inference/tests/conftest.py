"""Fixtures of the inference tests: every test starts with no remembered structured-output mode."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lorebase_inference import ChatModel


@pytest.fixture(autouse=True)
def _no_remembered_modes() -> Iterator[None]:
    ChatModel.forget_modes()
    yield
    ChatModel.forget_modes()
