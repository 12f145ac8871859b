"""Helpers for tests that meet Keeper over real HTTP: a Keeper app under uvicorn on loopback."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.types import ASGIApp

__all__ = ["serve_in_thread"]


@contextmanager
def serve_in_thread(app: ASGIApp, *, name: str = "keeper") -> Iterator[str]:
    """Run `app` under uvicorn on 127.0.0.1, on a port the system picks; yields its URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, name=name, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError(f"{name} stopped before it started listening")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name} did not start listening within 30 s")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
