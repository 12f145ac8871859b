"""The MCP floor of bench/herald/run.py: a bare MCP server answering canned tool results.

One tool, `canned`, answers the stored result of a read (the very `CallToolResult` Herald
answered, with Herald's output schema, `ToolAnswer`), without Herald and without Keeper: what
the SDK and the transport cost alone. run.py serves it in process and, as

    python bench/herald/floor.py CANNED.json

over stdio (CANNED.json: read name -> the result as JSON).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult

from lorebase_herald import ToolAnswer

Canned = Annotated[CallToolResult, ToolAnswer]


def floor_server(canned: dict[str, Any]) -> MCPServer[Any]:
    """An MCP server whose tool `canned(read)` answers `canned[read]` as a tool result."""
    results = {name: CallToolResult.model_validate(item) for name, item in canned.items()}
    server: MCPServer[Any] = MCPServer(name="floor", log_level="WARNING")

    @server.tool(name="canned", description="The stored result of a read.")
    async def canned_tool(read: str) -> Canned:
        return results[read]

    return server


def main() -> None:
    canned = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    anyio.run(floor_server(canned).run_stdio_async)


if __name__ == "__main__":
    main()
