"""`lorebase-guide`: serve Guide, and clear its remembered structured-output modes."""

from __future__ import annotations

import sys


def main() -> None:
    """Not built yet (issue 19): says so and exits 2."""
    sys.stderr.write("lorebase-guide: not built yet\n")
    raise SystemExit(2)
