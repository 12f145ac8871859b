"""Lorebase Keeper: the REST server."""

from lorebase_keeper.app import create_app

__all__ = ["create_app"]
