"""`Herald`: the MCP server, its Keeper client and what every tool call goes through.

Every tool is a read (or an Operation) of Keeper through one `AsyncLorebaseClient`, made with
the caller's rights: over HTTP a request's own Authorization header is forwarded unchanged
(herald.http.forward_authorization), otherwise Herald's key (herald.keeper.api_key) is used.
`Herald.call` runs one tool call: its span, its `CallScope` (trace headers, credential), and
Keeper's problem documents turned into tool errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import httpx
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace.export import SpanExporter
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from lorebase_client import AsyncLorebaseClient
from lorebase_core.errors import LorebaseError
from lorebase_herald.bounds import Budget
from lorebase_herald.calls import CallScope, KeeperTransport, TraceHeaders, calling
from lorebase_herald.problems import Refusal, keeper_error, refused, unreachable
from lorebase_herald.tools import register
from lorebase_herald.tools.base import HeraldServer, Read, ToolCall
from lorebase_platform.settings import Settings
from lorebase_platform.telemetry import tracer_provider

SERVICE = "lorebase-herald"
"""The service.name of Herald's spans."""

VERSION = "0.1.0"
MCP_SESSION_HEADER = "mcp-session-id"
"""The MCP session of stateful Streamable HTTP, the session id of last resort."""

INSTRUCTIONS = """\
Lorebase holds a versioned knowledge graph: Domains with typed Records (a Kind and a key,
written Kind/key, e.g. Supplier/S-1001) joined by Links of named Relations. Start with
lorebase_schema (narrowed to the Kinds you need) or lorebase_resolve to ground the words of a
question in Kinds, Attributes, Relations and values, with suggested queries to pass to
lorebase_query as they are; then lorebase_query for exact filters and counts,
lorebase_search for fuzzy text, lorebase_context for a Record with its neighborhood, and
lorebase_explain or lorebase_lineage before quoting a value. Every answer names the Revision it
was read at; pass it as `at` to read the same state again. Write only through
lorebase_execute (declared Operations; a dry_run first), which may open a Proposal for review.
"""


class Herald:
    """Lorebase over MCP: `mcp` is the server (stdio, Streamable HTTP or in-process clients).

    Args:
        settings: the whole tree; Herald reads `herald`, `keeper.trace` (header names),
            `agents.context.chars_per_token` and `telemetry`.
        transport: the httpx transport to Keeper (default: HTTP to herald.keeper.base_url;
            `httpx.ASGITransport(app)` reaches a Keeper app in process).
        span_exporters: extra OpenTelemetry exporters of Herald's spans (tests read them back).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        span_exporters: Sequence[SpanExporter] = (),
    ) -> None:
        self.settings = settings
        herald = settings.herald
        # Herald's own provider: spans and traceparents exist even when nothing exports them.
        self.provider = tracer_provider(settings.telemetry, SERVICE, span_exporters)
        self.tracer = self.provider.get_tracer("lorebase_herald", VERSION)
        names = settings.keeper.trace
        self.headers = TraceHeaders(
            session=names.session_header, tool=names.tool_header, opt_in=names.opt_in_header
        )
        inner = transport if transport is not None else httpx.AsyncHTTPTransport()
        self.client = AsyncLorebaseClient(
            herald.keeper.base_url,
            api_key=herald.keeper.api_key_value(),
            timeout=herald.keeper.timeout_s,
            transport=KeeperTransport(inner, headers=self.headers, tracer=self.tracer),
        )
        self.budget = Budget(herald.max_result_tokens, settings.agents.context.chars_per_token)
        self.read_only = herald.read_only
        self._closed = False
        self.mcp = HeraldServer(
            self, name="lorebase", title="Lorebase", instructions=INSTRUCTIONS, version=VERSION
        )
        register(self.mcp, read_only=self.read_only)

    async def aclose(self) -> None:
        """Close the Keeper connections and flush the spans (once; later calls do nothing)."""
        if self._closed:
            return
        self._closed = True
        await self.client.aclose()
        self.provider.shutdown()

    def scope_of(self, ctx: Context[Any, Any], tool: str) -> CallScope:
        """What the Keeper requests of this tool call carry (docs/mcp.md, "The agent trace")."""
        headers = _lower(ctx.headers)
        http = self.settings.herald.http
        authorization = headers.get("authorization") if http.forward_authorization else None
        trace_settings = self.settings.herald.trace
        if not trace_settings.enabled:
            return CallScope(tool=tool, authorization=authorization, trace=False)
        session = (
            headers.get(self.headers.session.lower())
            or trace_settings.session_id
            or headers.get(MCP_SESSION_HEADER)
        )
        opt_in = headers.get(self.headers.opt_in.lower()) or (
            "on" if trace_settings.opt_in else None
        )
        return CallScope(tool=tool, session_id=session, authorization=authorization, opt_in=opt_in)

    async def call(self, ctx: Context[Any, Any], tool: str, read: Read) -> CallToolResult:
        """Run one tool call: its span, its scope, and Keeper's errors as tool errors."""
        scope = self.scope_of(ctx, tool)
        parent = _caller_context(ctx.headers)
        with (
            self.tracer.start_as_current_span(
                tool,
                context=parent,
                kind=trace.SpanKind.INTERNAL,
                attributes={"gen_ai.tool.name": tool},
            ) as span,
            calling(scope),
        ):
            call = ToolCall(
                tool=tool, client=self.client, budget=self.budget, read_only=self.read_only
            )
            try:
                result = await read(call)
            except LorebaseError as error:
                span.set_attribute("error.type", error.code)
                return keeper_error(tool, error)
            except Refusal as refusal:
                span.set_attribute("error.type", refusal.code)
                return refused(tool, refusal.detail, code=refusal.code, status=refusal.status)
            except httpx.TransportError as error:
                span.set_attribute("error.type", type(error).__name__)
                return unreachable(tool, self.client.base_url, error)
            if result.is_error:
                span.set_attribute("error.type", "tool_error")
            return result


def _lower(headers: Mapping[str, str] | None) -> dict[str, str]:
    return {name.lower(): value for name, value in (headers or {}).items()}


def _caller_context(headers: Mapping[str, str] | None) -> otel_context.Context | None:
    """The caller's trace: the span active here (the MCP request's), else an HTTP traceparent."""
    if trace.get_current_span().get_span_context().is_valid:
        return None
    carrier = _lower(headers)
    if "traceparent" not in carrier:
        return None
    return TraceContextTextMapPropagator().extract(carrier)
