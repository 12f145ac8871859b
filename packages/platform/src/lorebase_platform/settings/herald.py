"""herald: Lorebase over MCP (docs/mcp.md)."""

from __future__ import annotations

from pydantic import Field

from lorebase_platform.secrets import resolve_secret
from lorebase_platform.settings.base import (
    Section,
    count,
    flag,
    listen_port,
    seconds,
    secret_reference,
    section,
)


class HeraldKeeperSettings(Section):
    """The Keeper Herald reads, and the credential it reads with."""

    base_url: str = Field(
        default="http://127.0.0.1:8080", description="Keeper's address (http://host:port)."
    )
    api_key: str | None = secret_reference(
        "Herald's own API key, as secret://env/NAME or secret://file//path; "
        "null: no key (a Keeper in auth mode none, or callers that bring their own over HTTP)."
    )
    timeout_s: float = seconds(30.0, "Seconds a Keeper request may take before it fails.")

    def api_key_value(self) -> str | None:
        """The key the reference names (None without one); raises SecretError if unresolvable."""
        return None if self.api_key is None else resolve_secret(self.api_key)


class HeraldHttpSettings(Section):
    """`lorebase-herald --http`: MCP over Streamable HTTP."""

    host: str = Field(default="127.0.0.1", description="Address Herald listens on.")
    port: int = listen_port(8765, "Port Herald listens on.")
    path: str = Field(default="/mcp", description="Path of the MCP endpoint.")
    stateless: bool = flag(
        False, "Stateless Streamable HTTP: no mcp-session-id, every request stands alone."
    )
    json_response: bool = flag(False, "Answer JSON documents instead of SSE streams.")
    allowed_hosts: list[str] = Field(
        default_factory=lambda: ["127.0.0.1:*", "localhost:*", "[::1]:*"],
        description="Host headers accepted (DNS-rebinding protection; host:* allows any port).",
    )
    allowed_origins: list[str] = Field(
        default_factory=lambda: ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        description="Origin headers accepted from browsers (DNS-rebinding protection).",
    )
    forward_authorization: bool = flag(
        True,
        "Send a request's own Authorization header to Keeper unchanged, so the "
        "caller's rights apply instead of Herald's key.",
    )
    require_authorization: bool = flag(
        False,
        "Refuse (401) MCP requests without their own Authorization header instead "
        "of reading with herald.keeper.api_key.",
    )


class HeraldTraceSettings(Section):
    """What Herald tells Keeper's agent trace (docs/mcp.md)."""

    enabled: bool = flag(
        True,
        "Send the session header, the tool header and a traceparent on every Keeper "
        "request; false: none of them.",
    )
    session_id: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9._:-]{1,128}$",
        description="Session id sent when the MCP client sends none (stdio, stateless HTTP).",
    )
    opt_in: bool = flag(
        False,
        "Send X-Lorebase-Trace: on with every request (Keeper then traces the calls "
        "when keeper.trace.allow_header_opt_in is on).",
    )


class HeraldSettings(Section):
    keeper: HeraldKeeperSettings = section(HeraldKeeperSettings, "The Keeper Herald reads.")
    read_only: bool = flag(
        False,
        "Leave the write tools (operations, execute, proposal) out of the catalogue "
        "and refuse them.",
    )
    max_result_tokens: int = count(
        4000,
        "Largest tool answer, estimated like context packs "
        "(agents.context.chars_per_token); longer answers are cut at item boundaries.",
        ge=100,
    )
    http: HeraldHttpSettings = section(HeraldHttpSettings, "MCP over Streamable HTTP.")
    trace: HeraldTraceSettings = section(HeraldTraceSettings, "The agent trace.")
