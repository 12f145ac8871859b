"""`lorebase-herald`: Herald over stdio (desktop MCP clients) or `--http` (Streamable HTTP).

    lorebase-herald                         # stdio, settings from $LOREBASE_CONFIG
    lorebase-herald --config lorebase.yaml --http --port 8765

Settings come from the one settings tree (herald.*); the flags override a few of them.
Logs go to stderr: on stdio, stdout carries the protocol only.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import uvicorn
from pydantic import ValidationError

from lorebase_core.errors import LorebaseError
from lorebase_herald.http import http_app
from lorebase_herald.server import Herald
from lorebase_platform.settings import Settings, load_settings, settings_problems


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="lorebase-herald",
        description="Lorebase over MCP: Keeper's reads and Operations as tools (docs/mcp.md).",
    )
    made.add_argument("--config", type=Path, help="settings file (default: $LOREBASE_CONFIG)")
    made.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
    made.add_argument("--host", help="address to listen on (herald.http.host)")
    made.add_argument("--port", type=int, help="port to listen on (herald.http.port)")
    made.add_argument(
        "--stateless", action="store_true", help="stateless HTTP (herald.http.stateless)"
    )
    made.add_argument("--read-only", action="store_true", help="no write tools (herald.read_only)")
    made.add_argument("--keeper", help="Keeper's URL (herald.keeper.base_url)")
    return made


def settings_of(arguments: argparse.Namespace) -> Settings:
    """The settings, with the flags given on the command line over them."""
    settings = load_settings(arguments.config)
    herald: dict[str, Any] = settings.herald.model_dump()
    if arguments.host:
        herald["http"]["host"] = arguments.host
    if arguments.port is not None:
        herald["http"]["port"] = arguments.port
    if arguments.stateless:
        herald["http"]["stateless"] = True
    if arguments.read_only:
        herald["read_only"] = True
    if arguments.keeper:
        herald["keeper"]["base_url"] = arguments.keeper
    return settings.model_copy(update={"herald": type(settings.herald).model_validate(herald)})


def main(argv: list[str] | None = None) -> None:
    arguments = parser().parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    try:
        settings = settings_of(arguments)
        herald = Herald(settings)
    except ValidationError as error:
        sys.exit(f"lorebase-herald: {settings_problems(error)}")
    except LorebaseError as error:
        sys.exit(f"lorebase-herald: {error}")
    try:
        if arguments.http:
            asyncio.run(_serve_http(herald))
        else:
            asyncio.run(_serve_stdio(herald))
    except KeyboardInterrupt:
        pass


async def _serve_stdio(herald: Herald) -> None:
    try:
        await herald.mcp.run_stdio_async()
    finally:
        await herald.aclose()


async def _serve_http(herald: Herald) -> None:
    http = herald.settings.herald.http
    server = uvicorn.Server(
        uvicorn.Config(http_app(herald), host=http.host, port=http.port, log_level="warning")
    )
    await server.serve()
