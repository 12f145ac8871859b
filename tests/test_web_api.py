"""The web app's copy of Keeper's OpenAPI document is the one Keeper publishes (scripts/web-api.py).

The app's types are generated from that copy (`npm run api`), so a changed request or answer
shape breaks the web app's build instead of a page; this test makes the copy follow Keeper.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "web-api.py"


def test_the_web_apps_openapi_copy_is_current() -> None:
    spec = importlib.util.spec_from_file_location("web_api", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.TARGET.read_text() == module.document(), (
        "web/src/api/openapi.json is stale: run `uv run python scripts/web-api.py`, then "
        "`npm run api` and `npm run build` in web/ to see what the change breaks"
    )
