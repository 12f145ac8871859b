"""The change feed of a branch: its event stream (Server-Sent Events) and webhooks; with their
routes (feed/routes)."""
