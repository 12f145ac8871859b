"""A scripted OpenAI-compatible model server for tests: real HTTP on loopback, no mocks.

    with ScriptedModelServer([{"answer": "42"}, "not json"]) as server:
        endpoint = ChatEndpoint(base_url=server.base_url, model="scripted")
        ...
        assert server.requests[0].body["model"] == "scripted"

Each `POST /v1/chat/completions` answers the next item of the script, in OpenAI's shape:

- a `str`: the assistant's content;
- a `dict`: dumped as JSON, the assistant's content;
- a `Reply(status=..., body=...)`: that answer as it is (an error, or a malformed completion);
- a callable `(RecordedRequest) -> str | dict | Reply`: answers from the request (the last tool
  result, say).

When the script has run out the server answers 500 saying so (and records the request), so a
test fails clearly. `POST /v1/embeddings` answers deterministic vectors (from a hash of each text)
and `GET /v1/models` the one model; neither takes a script item. Token counts are estimated as
the characters divided by 4, rounded up.

`LocalModelServer` (from `lorebase_inference.local_model`) is the other end: llama.cpp's own
OpenAI-compatible server serving a real GGUF model in a child process, for the few tests marked
`model`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from lorebase_inference.local_model import LOCAL_MODEL_FILE, LocalModelServer, local_model_path

__all__ = [
    "LOCAL_MODEL_FILE",
    "LocalModelServer",
    "RecordedRequest",
    "Reply",
    "ScriptItem",
    "ScriptedModelServer",
    "estimated_tokens",
    "local_model_path",
]


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received: its path, headers (names lower-cased) and JSON body."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """An answer sent as it is: a `dict` body as JSON, a `str` body as an OpenAI error document
    (`{"error": {"message": body, ...}}`)."""

    status: int = 400
    body: str | dict[str, Any] = field(default="scripted error")


ScriptItem = (
    str | dict[str, Any] | Reply | Callable[[RecordedRequest], "str | dict[str, Any] | Reply"]
)
"""One scripted answer of a chat completion."""


def estimated_tokens(text: str) -> int:
    """The server's token count of `text`: its characters divided by 4, rounded up."""
    return math.ceil(len(text) / 4)


class ScriptedModelServer:
    """A real HTTP server on 127.0.0.1 (a free port) answering chat completions from a script.

    Args:
        script: the answers of the chat completions, in order (`add` appends more).
        model: the model `GET /v1/models` lists.
        dims: the length of the embedding vectors.
        refuse_json_schema: answer 400 to any chat request whose `response_format` type is
            `json_schema`, without taking a script item (to test the step-down of modes).
    """

    def __init__(
        self,
        script: Iterable[ScriptItem] = (),
        *,
        model: str = "scripted",
        dims: int = 384,
        refuse_json_schema: bool = False,
    ) -> None:
        self.model = model
        self.dims = dims
        self.refuse_json_schema = refuse_json_schema
        self.requests: list[RecordedRequest] = []
        self._script: deque[ScriptItem] = deque(script)
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT/v1`, once started."""
        if self._httpd is None:
            raise RuntimeError("the ScriptedModelServer is not started: use it in a `with` block")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def remaining(self) -> int:
        """Script items not answered yet."""
        with self._lock:
            return len(self._script)

    def add(self, *items: ScriptItem) -> None:
        """Append answers to the script."""
        with self._lock:
            self._script.extend(items)

    def start(self) -> None:
        """Listen on a free port of 127.0.0.1 and serve in a daemon thread."""
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # A short poll interval: `close` waits up to one for the serving loop to notice.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="scripted-model-server",
            daemon=True,
        )
        self._thread.start()

    def close(self) -> None:
        """Stop serving and release the port."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> ScriptedModelServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # -- answers (called from the handler's threads) ----------------------------------------------

    def _answer(self, method: str, request: RecordedRequest) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append(request)
        if method == "GET" and request.path == "/v1/models":
            return 200, self._models()
        if method == "POST" and request.path == "/v1/embeddings":
            return 200, self._embeddings(request)
        if method == "POST" and request.path == "/v1/chat/completions":
            return self._chat(request)
        return 404, _error(f"ScriptedModelServer serves no {method} {request.path}", "not_found")

    def _chat(self, request: RecordedRequest) -> tuple[int, dict[str, Any]]:
        response_format = request.body.get("response_format")
        if (
            self.refuse_json_schema
            and isinstance(response_format, dict)
            and response_format.get("type") == "json_schema"
        ):
            return 400, _error("response_format json_schema not supported")
        with self._lock:
            item = self._script.popleft() if self._script else None
            number = len(self.requests)
        if item is None:
            return 500, _error(
                f"ScriptedModelServer: the script has no answer left for request {number} "
                "(POST /v1/chat/completions); add one to the script",
                "script_exhausted",
            )
        answer = item(request) if callable(item) else item
        if isinstance(answer, Reply):
            body = answer.body if isinstance(answer.body, dict) else _error(answer.body)
            return answer.status, body
        content = answer if isinstance(answer, str) else json.dumps(answer)
        return 200, self._completion(request, content)

    def _completion(self, request: RecordedRequest, content: str) -> dict[str, Any]:
        messages = request.body.get("messages")
        prompt = "".join(
            str(message.get("content", ""))
            for message in (messages if isinstance(messages, list) else [])
            if isinstance(message, dict)
        )
        prompt_tokens, completion_tokens = estimated_tokens(prompt), estimated_tokens(content)
        return {
            "id": f"chatcmpl-scripted-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.body.get("model", self.model),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _embeddings(self, request: RecordedRequest) -> dict[str, Any]:
        given = request.body.get("input", [])
        texts = [given] if isinstance(given, str) else [str(text) for text in given]
        tokens = sum(estimated_tokens(text) for text in texts)
        return {
            "object": "list",
            "data": [
                {"object": "embedding", "index": index, "embedding": _vector(text, self.dims)}
                for index, text in enumerate(texts)
            ],
            "model": request.body.get("model", self.model),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def _models(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "lorebase"}],
        }


def _vector(text: str, dims: int) -> list[float]:
    """A unit vector of `dims` floats drawn from a hash of `text`: the same text, the same one."""
    raw = hashlib.shake_256(text.encode("utf-8")).digest(4 * dims)
    values = [(number / 0xFFFFFFFF) * 2 - 1 for (number,) in struct.iter_unpack(">I", raw)]
    norm = math.sqrt(sum(value * value for value in values)) or 1.0
    return [value / norm for value in values]


def _error(message: str, code: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": code, "code": code}}


def _handler_for(server: ScriptedModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 10

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = {"_not_json": raw.decode("utf-8", "replace")}
            if not isinstance(body, dict):
                body = {"_not_an_object": body}
            request = RecordedRequest(
                self.path, {name.lower(): value for name, value in self.headers.items()}, body
            )
            status, answer = server._answer(method, request)
            payload = json.dumps(answer).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:  # the client gave up (a timeout test): nobody to answer
                self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read `server.requests` instead of an access log."""

    return Handler
