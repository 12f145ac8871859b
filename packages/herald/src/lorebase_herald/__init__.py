"""Lorebase Herald: Keeper over MCP (docs/mcp.md)."""

__all__: list[str] = []
