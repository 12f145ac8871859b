"""A real chat model for the few tests marked `model`: llama.cpp's server on loopback.

    with LocalModelServer(local_model_path()) as server:
        endpoint = ChatEndpoint(base_url=server.base_url, model=server.model)
        ...

`LocalModelServer` runs llama.cpp's own OpenAI-compatible server (the `xllamacpp` wheel, a dev
dependency) in a child Python process, on a free port of 127.0.0.1, serving one GGUF file. It
honours the `json_schema` response format. The child holds the model (about 2 GB of memory for
the 1.5B model) apart from the test process, and exits when its stdin closes: when `close` is
called, and also when the test process dies without calling it.

`bash scripts/fetch-model.sh` fetches the model the tests use, Qwen2.5-Coder-1.5B-Instruct
(Q4_K_M), into `~/.cache/lorebase/models`; `local_model_path()` is where the tests look for it.
One thread by default: on a small shared machine a second thread makes generation slower, not
faster.
"""

from __future__ import annotations

import importlib.util
import os
import selectors
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import IO

import httpx

__all__ = ["LOCAL_MODEL_FILE", "LocalModelServer", "local_model_path"]

LOCAL_MODEL_FILE = "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf"
"""The file name `scripts/fetch-model.sh` gives the model it fetches."""

_LOG_TAIL_CHARS = 2000

# The child: load the model, start the server on a free port, say where it listens, then serve
# until stdin reaches its end. Kept as source text so the test process never imports xllamacpp.
_CHILD = """
import sys

import xllamacpp

path, alias, n_ctx, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
params = xllamacpp.CommonParams()
params.model.path = path
params.model_alias = {alias}
params.hostnames = ["127.0.0.1"]
params.port = 0
params.n_ctx = n_ctx
params.n_parallel = 1
params.cpuparams.n_threads = threads
params.cpuparams_batch.n_threads = threads
server = xllamacpp.Server(params)
sys.stdout.write("listening " + server.listening_address + "\\n")
sys.stdout.flush()
sys.stdin.buffer.read()
del server
"""


def local_model_path() -> Path:
    """The GGUF the `model` tests run on: `$LOREBASE_TEST_MODEL_GGUF` when set, else where
    `scripts/fetch-model.sh` caches it by default (`~/.cache/lorebase/models`). It may not exist.
    """
    given = os.environ.get("LOREBASE_TEST_MODEL_GGUF")
    if given:
        return Path(given).expanduser()
    return Path.home() / ".cache" / "lorebase" / "models" / LOCAL_MODEL_FILE


class LocalModelServer:
    """llama.cpp's OpenAI-compatible server on 127.0.0.1 (a free port), in a child process.

    Args:
        gguf: the model file.
        model: the name the server lists in `GET /v1/models` and answers to.
        n_ctx: the context window in tokens (prompt and answer together).
        threads: CPU threads for prompt processing and generation.
        start_timeout_s: how long loading the model and starting the server may take.
    """

    def __init__(
        self,
        gguf: str | os.PathLike[str],
        *,
        model: str = "local",
        n_ctx: int = 8192,
        threads: int = 1,
        start_timeout_s: float = 300.0,
    ) -> None:
        self.gguf = Path(gguf)
        self.model = model
        self.n_ctx = n_ctx
        self.threads = threads
        self.start_timeout_s = start_timeout_s
        self.started_in_s: float | None = None
        """Seconds `start` took, from spawning the child to `GET /v1/models` answering."""
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._base_url: str | None = None

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT/v1`, once started."""
        if self._base_url is None:
            raise RuntimeError("the LocalModelServer is not started: use it in a `with` block")
        return self._base_url

    @property
    def pid(self) -> int | None:
        """The child process's id while it runs."""
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Spawn the child, and return once `GET /v1/models` answers.

        Raises:
            FileNotFoundError: no file at `gguf`.
            RuntimeError: xllamacpp is not installed, or the child exited before serving (the
                message ends with its log).
            TimeoutError: the server did not answer within `start_timeout_s`.
        """
        if not self.gguf.is_file():
            raise FileNotFoundError(
                f"no GGUF model at {str(self.gguf)!r}: run `bash scripts/fetch-model.sh`"
            )
        if importlib.util.find_spec("xllamacpp") is None:
            raise RuntimeError(
                "xllamacpp is not installed: it is a dev dependency, run `uv sync` (make install)"
            )
        started = time.monotonic()
        deadline = started + self.start_timeout_s
        # The child's log lives as long as the child (closed in `close`), not one block.
        self._log = tempfile.TemporaryFile()  # noqa: SIM115
        arguments = [str(self.gguf), self.model, str(self.n_ctx), str(self.threads)]
        self._process = process = subprocess.Popen(
            [sys.executable, "-c", _CHILD, *arguments],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        try:
            address = self._listening_address(process, deadline)
            self._wait_for_models(address, deadline)
        except BaseException:
            self.close()
            raise
        self._base_url = f"{address}/v1"
        self.started_in_s = time.monotonic() - started

    def rss_bytes(self, *, peak: bool = False) -> int | None:
        """The child's resident memory now (or its peak), from /proc; None where there is none."""
        if self._process is None:
            return None
        field = "VmHWM:" if peak else "VmRSS:"
        try:
            status = Path(f"/proc/{self._process.pid}/status").read_text()
        except OSError:
            return None
        for line in status.splitlines():
            if line.startswith(field):
                return int(line.split()[1]) * 1024
        return None

    def close(self) -> None:
        """Stop the child (closing its stdin; killing it if it lingers) and release the port."""
        process, self._process, self._base_url = self._process, None, None
        if process is not None:
            if process.stdin is not None:
                process.stdin.close()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:  # pragma: no cover - a child stuck in shutdown
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> LocalModelServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _listening_address(self, process: subprocess.Popen[bytes], deadline: float) -> str:
        assert process.stdout is not None  # spawned with stdout=PIPE
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(
                        f"llama.cpp did not load {self.gguf.name!r} within "
                        f"{self.start_timeout_s} s; its log ends:\n{self._log_tail()}"
                    )
                if not selector.select(remaining):
                    continue
                line = process.stdout.readline().decode("utf-8", "replace").strip()
                if line.startswith("listening "):
                    return line.removeprefix("listening ")
                if not line:
                    code = process.wait()
                    raise RuntimeError(
                        f"llama.cpp exited ({code}) before serving {self.gguf.name!r}; "
                        f"its log ends:\n{self._log_tail()}"
                    )

    def _wait_for_models(self, address: str, deadline: float) -> None:
        with httpx.Client(timeout=5.0) as http:
            while True:
                try:
                    if http.get(f"{address}/v1/models").status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{address}/v1/models did not answer 200 in time")
                time.sleep(0.1)

    def _log_tail(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0, os.SEEK_END)
        size = self._log.tell()
        self._log.seek(max(0, size - _LOG_TAIL_CHARS))
        return self._log.read().decode("utf-8", "replace")


def main(argv: list[str] | None = None) -> None:
    """`python -m lorebase_inference.local_model`: serve the local model until interrupted, for
    the example agent on a machine without Ollama (examples/agent/README.md)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m lorebase_inference.local_model",
        description="Serve a GGUF chat model with llama.cpp on 127.0.0.1 (OpenAI-compatible).",
    )
    parser.add_argument("--gguf", type=Path, default=None, help="default: local_model_path()")
    parser.add_argument("--n-ctx", type=int, default=8192, help="context window in tokens")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads")
    arguments = parser.parse_args(argv)
    gguf = arguments.gguf or local_model_path()
    if not gguf.exists():
        sys.exit(f"no model at {gguf}: fetch it with `bash scripts/fetch-model.sh`")
    with LocalModelServer(gguf, n_ctx=arguments.n_ctx, threads=arguments.threads) as server:
        print(f"serving {gguf.name} at {server.base_url} as model {server.model!r}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
