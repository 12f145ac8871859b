"""Fast answers: a repeated read, and its 304, answered from memory on the event loop.

A read's answer depends on the request, the caller's grants and what the store holds. This
middleware keeps the answer of each read that gave a stamped answer (answers.py) under a digest
of the request (method, path, query, body, Accept), its credential and the `HeadWatch` token
taken before the read began (`answers.KeptAnswers`: a write changes the token, and with it the
key, so nothing kept is ever stale). The same request again is answered from memory, without a
worker thread, a read transaction or routing, while

- the token is unchanged: nothing a read can show has been written since (this process's
  announced write transactions, SQLite's data_version, PostgreSQL's notices of every other
  process's announced writes: `engine.write_transaction`);
- the credential's principal is known without the store and equal to the one the read ran as
  (auth.Authenticator.known_principal: mode `none`, or an API key cached within
  keeper.auth.authz.grants_cache_ttl_s: a revoked key or grant is seen when that cache is
  read again, as for every request).

Everything outside this layer still runs (the log line, security headers, CORS, CSRF, path and
text checks, the body limit, the rate-limit charge and its headers). Requests this layer does not
take go the usual way: traced ones (their step records the read), with the read audit on, with
a session cookie or an OIDC token, and anything but GET and POST.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lorebase_core.errors import QuotaExceeded, RateLimited
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.auth.rate_limits import RATE_CHARGED, RATE_DECISION
from lorebase_keeper.middleware.body_limit import BODY
from lorebase_keeper.reads.answers import ANSWER_SLOT, AnswerSlot, KeptAnswers, etag_candidates
from lorebase_keeper.reads.reading import Keeper
from lorebase_keeper.trace.context import current_step
from lorebase_store import HeadToken, HeadWatch

_NOT_MODIFIED_DROPS = {b"content-type", b"content-length"}


@dataclass(frozen=True)
class _Kept:
    principal: Principal
    etag: str
    headers: list[tuple[bytes, bytes]]  # of the 304
    answer: tuple[list[tuple[bytes, bytes]], bytes] | None  # the 200's headers and body
    route: object
    path_params: dict[str, object]

    @property
    def size(self) -> int:
        return len(self.answer[1]) if self.answer is not None else 0


class FastAnswers:
    """Pure ASGI middleware, innermost (see the module's docstring)."""

    def __init__(self, app: ASGIApp, keeper: Keeper, heads: HeadWatch) -> None:
        self.app = app
        self.keeper = keeper
        self.heads = heads
        self._kept: KeptAnswers[bytes, _Kept] = KeptAnswers(
            keeper.settings.keeper.cache, lambda kept: kept.size
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] not in ("GET", "POST")
            or current_step() is not None
        ):
            await self.app(scope, receive, send)
            return
        token = self.heads.token()
        if token is None:
            await self.app(scope, receive, send)
            return
        known = self.keeper.authenticator.known_principal(Request(scope))
        if known is not None:
            kept = self._kept.get(_key(scope, known[0], token))
            if kept is not None and await self._answered(kept, known[1], scope, send):
                return
        await self._read(token, scope, receive, send)

    async def _answered(self, kept: _Kept, principal: Principal, scope: Scope, send: Send) -> bool:
        """Answer from `kept` when it still stands; False: the usual way must answer."""
        if kept.principal != principal:
            return False
        candidates = etag_candidates(_header(scope, b"if-none-match"))
        not_modified = kept.etag in candidates or "*" in candidates
        if not not_modified and kept.answer is None:
            return False
        scope["route"], scope["path_params"] = kept.route, dict(kept.path_params)
        try:
            self.keeper.authenticator.charge(Request(scope), principal)
        except (RateLimited, QuotaExceeded):
            # the usual way charges again and answers the problem document
            scope.pop(RATE_CHARGED, None)
            scope.pop(RATE_DECISION, None)
            return False
        if not_modified:
            await send({"type": "http.response.start", "status": 304, "headers": kept.headers})
            await send({"type": "http.response.body", "body": b""})
        else:
            assert kept.answer is not None
            headers, body = kept.answer
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
        return True

    async def _read(self, token: HeadToken, scope: Scope, receive: Receive, send: Send) -> None:
        """The usual way, keeping its answer when it was a stamped one."""
        slot = AnswerSlot()
        status = 0
        headers: list[tuple[bytes, bytes]] = []
        chunks: list[bytes] = []
        complete = False

        async def watched(message: Message) -> None:
            nonlocal status, headers, complete
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                complete = not message.get("more_body", False)
            await send(message)

        reset = ANSWER_SLOT.set(slot)
        try:
            await self.app(scope, receive, watched)
        finally:
            ANSWER_SLOT.reset(reset)
        if not complete or status not in (200, 304) or slot.etag is None:
            return
        if slot.principal is None or dict(headers).get(b"etag") != slot.etag.encode():
            return
        known = self.keeper.authenticator.known_principal(Request(scope))
        if known is None or known[1] != slot.principal:
            return  # a session or token, or grants read again meanwhile
        key = _key(scope, known[0], token)
        body = b"".join(chunks)
        answer = (headers, body) if status == 200 else None
        if answer is None:
            previous = self._kept.get(key)
            if previous is not None and previous.etag == slot.etag:
                answer = previous.answer  # a 304 after a 200 keeps the 200
        self._kept.put(
            key,
            _Kept(
                principal=slot.principal,
                etag=slot.etag,
                headers=[pair for pair in headers if pair[0] not in _NOT_MODIFIED_DROPS],
                answer=answer,
                route=scope.get("route"),
                path_params=dict(scope.get("path_params") or {}),
            ),
        )


def _header(scope: Scope, name: bytes) -> str | None:
    for header, value in scope.get("headers", []):
        if header == name:
            return str(value.decode("latin-1"))
    return None


def _key(scope: Scope, credential: str, token: HeadToken) -> bytes:
    """A digest of what a read's answer depends on: the request, its Accept header, the
    credential (as the authenticator's cache key: a digest, never the key) and the token of
    what the store held when it was read."""
    digest = hashlib.sha256()
    for part in (
        scope["method"].encode(),
        scope.get("raw_path") or scope["path"].encode(),
        scope.get("query_string", b""),
        (_header(scope, b"accept") or "").encode(),
        credential.encode(),
        repr(token).encode(),
    ):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    digest.update(scope.get(BODY, b""))
    return digest.digest()
