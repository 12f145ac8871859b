"""Write Keeper's OpenAPI document to web/src/api/openapi.json, the source of the web app's types.

`npm run api` (in web/) turns it into web/src/api/schema.d.ts, and the app's calls are typed by
it, so a changed shape breaks the build (`tsc`), not a page. The document is the one of API-key
mode, with the default settings; a test (tests/test_web_api.py) fails while the committed copy
differs from what Keeper publishes. Usage: `uv run python scripts/web-api.py [--check]`.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from lorebase_keeper import create_app
from lorebase_platform.settings import load_settings

TARGET = Path(__file__).resolve().parent.parent / "web" / "src" / "api" / "openapi.json"


def document() -> str:
    """Keeper's OpenAPI document, as the committed file holds it."""
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(None, database={"sqlite_path": f"{folder}/openapi.sqlite"})
        app = create_app(settings)
        return json.dumps(app.openapi(), indent=1, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    text = document()
    if "--check" in argv:
        if not TARGET.is_file() or TARGET.read_text() != text:
            print(
                f"{TARGET} is stale: run `uv run python scripts/web-api.py` and `npm run api` in web/"
            )
            return 1
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET} ({len(text)} characters)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
