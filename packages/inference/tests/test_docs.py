"""docs/inference.md's testing example runs as written."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).resolve().parents[3] / "docs" / "inference.md"

pytestmark = pytest.mark.anyio


async def test_the_testing_example_runs() -> None:
    section = DOC.read_text("utf-8").split("## Testing with", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None
    # The example awaits at the top level, as in a test body: run it as one.
    source = "async def example():\n" + textwrap.indent(found.group(1), "    ")
    namespace: dict[str, Any] = {}
    exec(compile(source, str(DOC), "exec"), namespace)
    await namespace["example"]()
