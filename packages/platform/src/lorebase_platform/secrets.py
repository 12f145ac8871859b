"""`secret://` references: secrets live in files or the environment, never in the settings file.

secret://env/NAME            the value of environment variable NAME
secret://file//abs/path      the contents of a file (trailing newline stripped)
"""

from __future__ import annotations

import os
from pathlib import Path

from lorebase_core.errors import SecretError

PREFIX = "secret://"


def is_secret_ref(value: str) -> bool:
    return value.startswith(PREFIX)


def resolve_secret(reference: str) -> str:
    """The value a `secret://` reference names; a plain value is returned unchanged."""
    if not is_secret_ref(reference):
        return reference
    body = reference[len(PREFIX) :]
    scheme, _, rest = body.partition("/")
    if scheme == "env" and rest:
        value = os.environ.get(rest)
        if value is None:
            raise SecretError(
                f"environment variable {rest!r} named by a secret reference is not set"
            )
        return value
    if scheme == "file" and rest.startswith("/"):
        path = Path(rest[1:] if rest.startswith("//") else rest)
        try:
            return path.read_text(encoding="utf-8").rstrip("\n")
        except OSError as exc:
            raise SecretError(f"secret file {str(path)!r} cannot be read: {exc.strerror}") from exc
    raise SecretError("a secret reference is secret://env/NAME or secret://file//absolute/path")
