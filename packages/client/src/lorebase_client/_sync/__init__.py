"""The sync client, written from `_async/` by scripts/unasync.py (`make unasync`): change those."""
