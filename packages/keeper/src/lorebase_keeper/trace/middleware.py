"""The trace middleware: turns a traced request into a step, and a read into a read audit entry.

Pure ASGI, just inside the access log. For an untraced request it costs one header lookup
(`TraceDecision.candidate`); with trace_all, principals or api_keys every authenticated request
is a candidate until it has answered. A candidate's request body (up to max_query_bytes) and its
successful JSON answer (up to max_response_bytes; 64 KiB for writes, read only for the Proposal
they name) are kept in memory until the answer is sent, then parsed once for the query, counts
and refs, and the step goes to the Recorder's queue. What a step keeps and never keeps is
decided in capture.py and answers.py; the write happens in a background batch.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lorebase_core.values import format_datetime
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.http.errors import ROUTE_SEEN, described
from lorebase_keeper.http.headers import header
from lorebase_keeper.http.session_cookie import cookie_names
from lorebase_keeper.shapes.common import JsonObject
from lorebase_keeper.trace.answers import refs_of, result_of
from lorebase_keeper.trace.capture import capture_query
from lorebase_keeper.trace.context import StepContext, begin_step, end_step
from lorebase_keeper.trace.decision import Candidate, TraceDecision
from lorebase_keeper.trace.recorder import Recorder
from lorebase_keeper.trace.sensitivity import sensitive_names
from lorebase_platform.settings import Settings
from lorebase_store import ReadAuditEntry, TraceStep, collect_statements

logger = logging.getLogger("lorebase.keeper.trace")

READ_POST_NAMES = frozenset(("query", "context", "search", "resolve", "traverse", "neighborhood"))
READ_POSTS = frozenset(f"/api/v1/domains/{{domain}}/{name}" for name in READ_POST_NAMES)
"""POST routes that only read: their bodies are queries."""
TRACE_ROUTES = "/api/v1/trace/"
"""The trace's own routes are not steps: a note is one already, and reading a timeline is not
agent activity."""
WRITE_ANSWER_BYTES = 65536
REJECTED = {"rejected": True}


def is_read(method: str, route: str) -> bool:
    return method in ("GET", "HEAD") or (method == "POST" and route in READ_POSTS)


class TraceMiddleware:
    """Records traced requests as steps, and reads as read audit entries when that is on."""

    def __init__(self, app: ASGIApp, *, settings: Settings, recorder: Recorder) -> None:
        self.app = app
        self.settings = settings.keeper.trace
        self.audit_reads = settings.keeper.auth.audit.reads
        self.audit_refs = settings.keeper.auth.audit.max_refs
        self.recorder = recorder
        cookies = cookie_names(settings.keeper.auth.sessions)
        self.decision = (
            TraceDecision(self.settings, session_cookies=cookies) if self.settings.enabled else None
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        candidate = self.decision.candidate(scope["headers"]) if self.decision else None
        if candidate is None and not self.audit_reads:
            await self.app(scope, receive, send)
            return
        await _Observed(self, scope, candidate).run(receive, send)


class _Observed:
    """One candidate request on its way: what it sent, what it answered, and when."""

    def __init__(self, owner: TraceMiddleware, scope: Scope, candidate: Candidate | None) -> None:
        self.owner = owner
        self.scope = scope
        self.candidate = candidate
        self.context = StepContext(debug=candidate.debug if candidate else False)
        self.at = format_datetime(datetime.now(UTC))
        self.body = bytearray()
        self.body_over = False
        self.status = 0
        self.json_answer = False
        self.answer = bytearray()
        self.answer_over = False
        # a write's answer is kept up to 64 KiB, only for the Proposal it names
        method, path = str(scope["method"]), str(scope.get("path", ""))
        reads = method in ("GET", "HEAD") or path.rsplit("/", 1)[-1] in READ_POST_NAMES
        self.answer_limit = owner.settings.max_response_bytes if reads else WRITE_ANSWER_BYTES

    async def run(self, receive: Receive, send: Send) -> None:
        limits = self.owner.settings
        began = time.perf_counter()

        async def received() -> Message:
            message = await receive()
            if message["type"] == "http.request" and not self.body_over:
                chunk = message.get("body", b"")
                if len(self.body) + len(chunk) > limits.max_query_bytes:
                    self.body_over = True
                    self.body.clear()
                else:
                    self.body.extend(chunk)
            return message

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.status = int(message["status"])
                kind = header(list(message.get("headers", [])), b"content-type") or b""
                self.json_answer = kind.startswith(b"application/json")
            elif message["type"] == "http.response.body" and not self.answer_over:
                chunk = message.get("body", b"")
                if len(self.answer) + len(chunk) > self.answer_limit:
                    self.answer_over = True
                    self.answer.clear()
                else:
                    self.answer.extend(chunk)
            await send(message)

        token = begin_step(self.context)
        try:
            with ExitStack() as stack:
                if self.context.debug:
                    self.context.statements = stack.enter_context(collect_statements())
                await self.owner.app(self.scope, received, sending)
        finally:
            end_step(token)
            latency_ms = round((time.perf_counter() - began) * 1000, 3)
            try:
                self._record(latency_ms)
            except Exception as exc:  # the trace never fails a request: log it without values
                logger.error("a traced step could not be made:\n%s", described(exc))

    # -- after the answer ------------------------------------------------------------------------

    def _record(self, latency_ms: float) -> None:
        principal = self.context.principal
        if principal is None:
            return  # unauthenticated requests are neither traced nor audited
        if not self.status:
            self.status = 500  # the route failed before answering: the access log answers 500
        holder = self.scope.get(ROUTE_SEEN)
        seen: dict[str, object] = holder if isinstance(holder, dict) else {}
        route = str(seen.get("route", "(no route)"))
        params = seen.get("path_params")
        self.path_params: dict[str, object] = params if isinstance(params, dict) else {}
        method = str(self.scope["method"])
        reading = is_read(method, route)
        answer = self._answer()
        decision, candidate = self.owner.decision, self.candidate
        if (
            decision is not None
            and candidate is not None
            and not route.startswith(TRACE_ROUTES)
            and decision.settle(candidate, principal)
        ):
            self._trace(principal, method, route, reading, answer, latency_ms)
        if self.owner.audit_reads and reading and self.context.domain is not None:
            self.owner.recorder.submit_audit(
                ReadAuditEntry(
                    principal=principal.id,
                    route=route,
                    domain=self.context.domain,
                    branch=self.context.branch,
                    revision=self.context.revision,
                    refs=refs_of(answer, max_refs=self.owner.audit_refs)
                    if answer is not None
                    else [],
                    status=self.status,
                    at=self.at,
                )
            )

    def _answer(self) -> object:
        """The parsed JSON answer, when it is a successful one small enough to keep."""
        if not (200 <= self.status < 300) or not self.json_answer or self.answer_over:
            return None
        try:
            return json.loads(self.answer)
        except ValueError:
            return None

    def _trace(
        self,
        principal: Principal,
        method: str,
        route: str,
        reading: bool,
        answer: object,
        latency_ms: float,
    ) -> None:
        assert self.candidate is not None
        settings = self.owner.settings
        query: JsonObject | None = None
        result: JsonObject | None = None
        refs: list[dict[str, str]] | None = None
        proposal_id: str | None = None
        if reading:
            query = dict(REJECTED) if self.status == 422 else self._query()
            if answer is not None:
                result = result_of(answer, keep_corrections=settings.capture_search_text)
                refs = refs_of(answer, max_refs=settings.max_refs)
        else:
            proposal_id = _proposal_of(self.path_params, answer)
        domain = self.context.domain or _text(self.path_params.get("domain"))
        statements = None
        if (
            self.context.statements
            and domain is not None
            and "trace.explain" in principal.permissions(domain, self.context.branch)
        ):
            statements = list(self.context.statements)
        step = TraceStep(
            principal=principal.id,
            session_id=self.candidate.session_id,
            client=client_digest(principal, self.scope),
            domain=domain,
            at=self.at,
            tool=self.candidate.tool,
            method=method,
            route=route,
            status=self.status,
            latency_ms=latency_ms,
            cache=self.context.cache,
            query=query,
            result=result,
            refs=refs,
            proposal_id=proposal_id,
            trace_id=self.candidate.trace_id,
        )
        self.owner.recorder.submit(step, statements)

    def _query(self) -> JsonObject:
        settings = self.owner.settings
        body: object = None
        if self.body_over:
            body = {"truncated": True}
        elif self.body:
            try:
                body = json.loads(self.body)
            except ValueError:
                body = {"redacted": "text"}
        params = parse_qsl(self.scope.get("query_string", b"").decode("latin-1"), True)
        names = sensitive_names(self.context.schemas) if self.context.schemas else None
        return capture_query(body=body, params=params, names=names, settings=settings)


def client_digest(principal: Principal, scope: Scope) -> str:
    """Who the client is, for inferred sessions: principal, credential fingerprint, User-Agent.

    The fingerprint is the API key id, else a digest of the browser session cookie, else the
    authentication method; only the digest of all three is kept.
    """
    headers = scope["headers"]
    fingerprint = principal.key_id or ""
    if not fingerprint:
        cookie = header(headers, b"cookie")
        fingerprint = (
            "cookie:" + hashlib.sha256(cookie).hexdigest() if cookie else principal.authenticated_by
        )
    agent = (header(headers, b"user-agent") or b"").decode("latin-1")
    text = "\0".join((principal.id, fingerprint, agent))
    return hashlib.sha256(text.encode()).hexdigest()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _proposal_of(path_params: dict[str, object], answer: object) -> str | None:
    """The Proposal a write names: in its path, or in its answer (opened or acted on)."""
    named = _text(path_params.get("proposal"))
    if named is not None:
        return named
    if not isinstance(answer, dict):
        return None
    proposal = answer.get("proposal")
    if isinstance(proposal, dict) and isinstance(proposal.get("id"), str):
        return str(proposal["id"])
    if isinstance(proposal, str):
        return proposal
    identifier = answer.get("id")
    if isinstance(identifier, str) and identifier.startswith("prp_"):
        return identifier
    return None
