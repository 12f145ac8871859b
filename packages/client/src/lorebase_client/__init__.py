"""Lorebase client: the `lorebase` CLI (the Python HTTP client comes with Keeper's read API)."""
