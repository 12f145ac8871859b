"""Lorebase Keeper: the REST server.

`create_app` is imported lazily so that the CLI commands registered here start without loading
the web framework.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lorebase_keeper.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> object:
    if name == "create_app":
        from lorebase_keeper.app import create_app

        return create_app
    raise AttributeError(name)
