"""Keeper's commands of the `lorebase` CLI (serve, demo, import, log, key, grant, principal, session).

Registered as `lorebase.commands` entry points; nothing else in Keeper imports this room."""
