"""The async client, written by hand: scripts/unasync.py writes `_sync/` from these modules."""
