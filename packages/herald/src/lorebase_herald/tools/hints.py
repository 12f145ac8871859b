"""The SDK's tool hints of Herald's two families, and the structured output they declare."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult, ToolAnnotations

from lorebase_herald.answers import ToolAnswer

READ = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
"""A read of Keeper: changes nothing, the same call answers the same at the same Revision."""

WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)
"""A write: may change or replace values; repeat it safely only with the same idempotency_key."""

Answered = Annotated[CallToolResult, ToolAnswer]
"""What a tool returns: Markdown text plus a `ToolAnswer` (its output schema)."""
