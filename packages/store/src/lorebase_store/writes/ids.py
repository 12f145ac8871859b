"""Identifiers of write-side rows: a prefix and a ULID (time-ordered, 26 Crockford base-32 chars).

`inv_` executions, `prp_` Proposals, `mat_` merge attempts, `cfl_` Conflicts. The time prefix
keeps them in creation order, so lists sorted by id are sorted by time.
"""

from __future__ import annotations

import secrets
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_id(prefix: str) -> str:
    value = (int(time.time() * 1000) << 80) | secrets.randbits(80)
    chars = []
    for _ in range(26):
        value, digit = divmod(value, 32)
        chars.append(_ALPHABET[digit])
    return f"{prefix}_{''.join(reversed(chars))}"
