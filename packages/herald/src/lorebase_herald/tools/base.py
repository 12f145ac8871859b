"""What a tool is made of, and how it reaches the Herald it runs in.

Each tool is a module-level function declared into its family's `Family` table; `Family.register`
adds the table to a server. A tool call hands its work with Keeper, a `Read`, to `run`: that finds
the `ToolHost` of the `HeraldServer` answering the request (the one `lorebase_herald.server.Herald`)
and runs the work with a `ToolCall` (Keeper's client, the tool's name, the answer budget). So the
tools never import the server module that builds them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ToolAnnotations

from lorebase_client import AsyncLorebaseClient, Text
from lorebase_herald.bounds import Budget
from lorebase_herald.problems import refused
from lorebase_herald.tools.shaping import Shape, rendered, shaped

Ctx = Context[Any, Any]
"""The request of a tool call, as the SDK hands it to a tool."""


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """What one tool call works with: Keeper's client (with the caller's rights, see calls.py),
    the tool's name, Herald's answer budget and whether Herald is read-only."""

    tool: str
    client: AsyncLorebaseClient
    budget: Budget
    read_only: bool

    def shaped(
        self, answer: Mapping[str, Any], shape: Shape, *, kinds: Sequence[str] = ()
    ) -> CallToolResult:
        """The tool result of a JSON answer, within the budget (tools/shaping.py `shaped`)."""
        return shaped(self.budget, self.tool, answer, shape, kinds=kinds)

    def rendered(
        self, text: Text, *, domain: str, branch: str | None, result: dict[str, Any]
    ) -> CallToolResult:
        """The tool result of a Markdown answer, within the budget (`rendered`)."""
        return rendered(self.budget, self.tool, text, domain=domain, branch=branch, result=result)

    def refused(self, detail: str, *, code: str, status: int = 400) -> CallToolResult:
        """A tool error Herald answers itself (problems.py `refused`)."""
        return refused(self.tool, detail, code=code, status=status)


Read = Callable[[ToolCall], Awaitable[CallToolResult]]
"""One tool call's work with Keeper."""


class ToolHost(Protocol):
    """What the tools need of their Herald: running a tool call's work."""

    async def call(self, ctx: Ctx, tool: str, read: Read) -> CallToolResult:
        """Run `read` as the tool call `tool`: its span, its scope, Keeper's errors as tool
        errors."""
        ...


class HeraldServer(MCPServer[Any]):
    """The MCP server of one Herald: its tools find the Herald through it (`run`)."""

    def __init__(
        self, host: ToolHost, *, name: str, title: str, instructions: str, version: str
    ) -> None:
        super().__init__(
            name=name, title=title, instructions=instructions, version=version, log_level="WARNING"
        )
        self.host = host


async def run(ctx: Ctx, tool: str, read: Read) -> CallToolResult:
    """Run `read` as the tool call `tool` of the Herald whose server answers `ctx`."""
    server = ctx.mcp_server
    if not isinstance(server, HeraldServer):
        raise TypeError(f"Herald's tools run on a HeraldServer, not on {server!r}")
    return await server.host.call(ctx, tool, read)


ToolFunction = Callable[..., Awaitable[CallToolResult]]
Declared = TypeVar("Declared", bound=ToolFunction)


@dataclass(frozen=True)
class ToolSpec:
    """One tool as the server lists it: the function (its name is the tool's) and its hints."""

    function: ToolFunction
    title: str
    description: str
    annotations: ToolAnnotations


class Family:
    """The tools of one module, in the order they are listed."""

    def __init__(self) -> None:
        self.tools: list[ToolSpec] = []

    def tool(
        self, *, title: str, description: str, annotations: ToolAnnotations
    ) -> Callable[[Declared], Declared]:
        """Declare the decorated function a tool of this family (named after the function)."""

        def declare(function: Declared) -> Declared:
            self.tools.append(ToolSpec(function, title, description, annotations))
            return function

        return declare

    def register(self, server: MCPServer[Any]) -> None:
        """Add the family's tools to `server`."""
        for spec in self.tools:
            server.add_tool(
                spec.function,
                name=spec.function.__name__,
                title=spec.title,
                description=spec.description,
                annotations=spec.annotations,
            )
