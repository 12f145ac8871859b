"""Helpers for tests that meet Keeper over real HTTP: a Keeper app under uvicorn on loopback."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import uvicorn
from starlette.types import ASGIApp

__all__ = ["serve_in_thread"]


@contextmanager
def serve_in_thread(
    app: ASGIApp,
    *,
    name: str = "keeper",
    runner: Callable[[Callable[[], None]], object] | None = None,
    **config: Any,
) -> Iterator[str]:
    """Run `app` under uvicorn on 127.0.0.1, on a port the system picks; yields its URL.

    `config` adds uvicorn settings (`timeout_keep_alive=120`, say); `runner` calls the server's
    loop for the thread (`profiler.runcall` profiles it).
    """
    options: dict[str, Any] = {"host": "127.0.0.1", "port": 0, "log_level": "warning", **config}
    server = uvicorn.Server(uvicorn.Config(app, **options))
    target = server.run if runner is None else partial(runner, server.run)
    thread = threading.Thread(target=target, name=name, daemon=True)
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
