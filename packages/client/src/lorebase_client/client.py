"""`LorebaseClient`: Keeper's API over HTTP, reads and writes, synchronous (httpx.Client).

`AsyncLorebaseClient` (async_client.py) is its twin with the same methods; both build their
requests in routes.py and read the answers in answers.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any, Literal, Self, overload

import httpx

from lorebase_client import routes
from lorebase_client.answers import Answer, Text, json_answer, text_answer
from lorebase_client.connection import (
    DEFAULT_TIMEOUT,
    TraceMode,
    build_request,
    client_headers,
    key_unused,
    resolve_api_key,
    resolve_base_url,
)
from lorebase_client.events import Follower, follow
from lorebase_client.routes import (
    NO_VALUE,
    ApiRequest,
    AuditKind,
    BranchMode,
    ConflictChoice,
    ConflictStatus,
    ExplainFormat,
    ProposalStatus,
    SchemaFormat,
    Verdict,
)
from lorebase_client.trace_calls import TraceCalls
from lorebase_client.webhook_calls import WebhookCalls


class LorebaseClient:
    """A client of Keeper's API: its reads, and its writes (Operations, Proposals, merges).

    Every method returns the parsed answer (`Answer`, a `dict`; `Text` for Markdown) and raises
    the typed error of a problem document (`KindNotFound`, `HistoryForbidden` ...), with the
    response attached. Reads of Records take `branch` (default: the Domain's default branch) and
    `at` (a Revision id, a unique prefix of one, or a tag); cacheable reads take `etag` (see
    `Answer`).

    Args:
        base_url: Keeper's address (default: $LOREBASE_URL, else http://127.0.0.1:8080).
        api_key: sent as `Authorization: Bearer` (default: $LOREBASE_API_KEY).
        session_id: the agent trace's session of every call (`X-Lorebase-Session`): 1 to 128
            characters of A-Z a-z 0-9 . _ : -.
        trace: `"on"` opts every call in to the agent trace (`X-Lorebase-Trace`), `"debug"`
            adds query plans (needs trace.explain); None sends no opt-in.
        tool: the tool making the calls (`X-Lorebase-Tool`), for example an MCP tool's name.
        timeout: seconds, or an `httpx.Timeout`.
        transport: an httpx transport (tests pass `httpx.MockTransport` or a WSGI one).

    Example:
        ```python
        with LorebaseClient("http://127.0.0.1:8080", api_key="lbk_...") as client:
            supplier = client.record("supply", "Supplier", "S-1001", lineage=True)
            print(supplier["values"]["risk_score"], supplier.revision)
        ```
    """

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        session_id: str | None = None,
        trace: TraceMode | None = None,
        tool: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = resolve_base_url(base_url)
        self._http = httpx.Client(
            base_url=self.base_url,
            headers=client_headers(
                resolve_api_key(api_key), session_id=session_id, trace=trace, tool=tool
            ),
            timeout=timeout,
            transport=transport,
        )
        self.key_unused = False
        """True once Keeper answered a request of this client without using its API key: it
        runs in auth mode `none`, where every request acts as the local administrator."""
        self.trace = TraceCalls(self._json)
        self.webhooks = WebhookCalls(self._json)
        """The agent trace: `add_note`, `session`, `sessions` (docs/trace.md)."""

    def __repr__(self) -> str:
        return f"LorebaseClient({self.base_url!r})"

    def close(self) -> None:
        """Close the connections (the client is not usable afterwards)."""
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _send(self, request: ApiRequest) -> httpx.Response:
        response = self._http.send(build_request(self._http, request))
        self.key_unused = self.key_unused or key_unused(response)
        return response

    def _json(self, request: ApiRequest) -> Answer:
        return json_answer(self._send(request))

    def _items(self, request: ApiRequest | None, member: str) -> Iterator[dict[str, Any]]:
        while request is not None:
            answer = self._json(request)
            yield from routes.page_items(answer, member)
            request = routes.next_page(request, answer)

    # -- the caller and the Domains -----------------------------------------------------------

    def whoami(self) -> Answer:
        """The caller: principal, type, how it authenticated, and its grants."""
        return self._json(routes.whoami())

    def oidc_configuration(self) -> Answer:
        """How to sign in with OIDC (issuer, client_id, endpoints, scopes, audience; no secret)."""
        return self._json(routes.oidc_configuration())

    def domains(self) -> Answer:
        """The Domains the caller may read (`domains`: name, default_branch, created_at)."""
        return self._json(routes.domains())

    # -- schema, Records, Links ---------------------------------------------------------------

    @overload
    def schema(
        self,
        domain: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        format: Literal["json", "compact"] = "json",
        kinds: Sequence[str] | None = None,
        etag: str | None = None,
    ) -> Answer: ...

    @overload
    def schema(
        self,
        domain: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        format: Literal["markdown"],
        kinds: Sequence[str] | None = None,
        etag: str | None = None,
    ) -> Text: ...

    def schema(
        self,
        domain: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        format: SchemaFormat = "json",
        kinds: Sequence[str] | None = None,
        etag: str | None = None,
    ) -> Answer | Text:
        """The schema of a Domain, as far as the caller may read it.

        `format="compact"` answers names, keys and types only (Relations first), `"markdown"`
        the same as text for a prompt (a `Text`); `kinds` narrows it to those Kinds and the
        Relations between them.
        """
        request = routes.schema(domain, branch=branch, at=at, etag=etag, format=format, kinds=kinds)
        if request.expect == "markdown":
            return text_answer(self._send(request))
        return self._json(request)

    def records(
        self,
        domain: str,
        kind: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        etag: str | None = None,
    ) -> Answer:
        """One page of the Records of a Kind, in key order (`records`, `next_cursor`)."""
        request = routes.records(
            domain, kind, branch=branch, at=at, limit=limit, cursor=cursor, etag=etag
        )
        return self._json(request)

    def iter_records(
        self,
        domain: str,
        kind: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        page_size: int | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Every Record of a Kind, page after page, all read at the Revision of the first page."""
        request = routes.records(
            domain, kind, branch=branch, at=at, limit=page_size, cursor=None, etag=None
        )
        return self._items(request, "records")

    def record(
        self,
        domain: str,
        kind: str,
        key: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        links: bool = False,
        lineage: bool = False,
        etag: str | None = None,
    ) -> Answer:
        """One Record; `links` adds its Link counts per Relation, `lineage` its value sources."""
        request = routes.record(
            domain, kind, key, branch=branch, at=at, links=links, lineage=lineage, etag=etag
        )
        return self._json(request)

    def links(
        self,
        domain: str,
        kind: str,
        key: str,
        relation: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        etag: str | None = None,
    ) -> Answer:
        """One page of the Links of a Record along a Relation (its forward or inverse name)."""
        request = routes.links(
            domain,
            kind,
            key,
            relation,
            branch=branch,
            at=at,
            limit=limit,
            cursor=cursor,
            etag=etag,
        )
        return self._json(request)

    def iter_links(
        self,
        domain: str,
        kind: str,
        key: str,
        relation: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        page_size: int | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Every Link of a Record along a Relation, all pages read at one Revision."""
        request = routes.links(
            domain,
            kind,
            key,
            relation,
            branch=branch,
            at=at,
            limit=page_size,
            cursor=None,
            etag=None,
        )
        return self._items(request, "links")

    # -- why a Record is what it is -----------------------------------------------------------

    def history(
        self,
        domain: str,
        kind: str,
        key: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        values: bool = False,
        limit: int | None = None,
        cursor: str | None = None,
        etag: str | None = None,
        attributes: Sequence[str] | None = None,
    ) -> Answer:
        """One page of the changes of a Record on the branch, newest first (`changes`).

        `values` adds the values before and after each change; `attributes` keeps only the
        changes of those Attributes, each naming only them (and their values only). Needs a
        grant not narrowed to Kinds (`HistoryForbidden` otherwise).
        """
        request = routes.history(
            domain,
            kind,
            key,
            branch=branch,
            at=at,
            values=values,
            limit=limit,
            cursor=cursor,
            etag=etag,
            attributes=attributes,
        )
        return self._json(request)

    def iter_history(
        self,
        domain: str,
        kind: str,
        key: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        values: bool = False,
        page_size: int | None = None,
        attributes: Sequence[str] | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Every change of a Record, newest first, all pages read at one Revision."""
        request = routes.history(
            domain,
            kind,
            key,
            branch=branch,
            at=at,
            values=values,
            limit=page_size,
            cursor=None,
            etag=None,
            attributes=attributes,
        )
        return self._items(request, "changes")

    def lineage(
        self,
        domain: str,
        kind: str,
        key: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        etag: str | None = None,
    ) -> Answer:
        """Where each current value of a Record came from (`attributes`, `changes`)."""
        return self._json(routes.lineage(domain, kind, key, branch=branch, at=at, etag=etag))

    @overload
    def explain(
        self,
        domain: str,
        kind: str,
        key: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        format: Literal["json"] = "json",
        etag: str | None = None,
    ) -> Answer: ...

    @overload
    def explain(
        self,
        domain: str,
        kind: str,
        key: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        format: Literal["markdown"],
        etag: str | None = None,
    ) -> Text: ...

    def explain(
        self,
        domain: str,
        kind: str,
        key: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        format: ExplainFormat = "json",
        etag: str | None = None,
    ) -> Answer | Text:
        """Why a Record exists and why its values are what they are.

        `format="markdown"` answers the same as Markdown text for a prompt (a `Text`).
        """
        request = routes.explain(domain, kind, key, branch=branch, at=at, format=format, etag=etag)
        if request.expect == "markdown":
            return text_answer(self._send(request))
        return self._json(request)

    # -- queries and the graph ----------------------------------------------------------------

    def query(
        self,
        domain: str,
        document: Mapping[str, Any] | None = None,
        *,
        kind: str | None = None,
        trait: str | None = None,
        where: Mapping[str, Any] | None = None,
        select: Sequence[str] | None = None,
        order_by: Sequence[Mapping[str, Any]] | None = None,
        aggregate: Mapping[str, Any] | None = None,
        coverage: bool | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        branch: str | None = None,
        at: str | None = None,
        etag: str | None = None,
    ) -> Answer:
        """Run a query of the DSL (docs/query.md): a whole `document`, keyword members, or both.

        Keyword members that are not None are set over `document`.

        Example:
            ```python
            tier_1 = {"attr": "tier", "op": "eq", "value": 1}
            client.query("supply", kind="Supplier", where=tier_1, select=["legal_name"])
            ```
        """
        members = routes.query_members(
            kind=kind,
            trait=trait,
            where=where,
            select=select,
            order_by=order_by,
            aggregate=aggregate,
            coverage=coverage,
            limit=limit,
            cursor=cursor,
            branch=branch,
            at=at,
        )
        return self._json(routes.query(domain, document, members, etag=etag))

    def traverse(
        self,
        domain: str,
        start: Sequence[str],
        path: Sequence[str],
        *,
        limit: int | None = None,
        branch: str | None = None,
        at: str | None = None,
        etag: str | None = None,
    ) -> Answer:
        """Follow a path of Relations from Records of one Kind (`start`: refs, `Part/P-10028`)."""
        request = routes.traverse(domain, start, path, limit=limit, branch=branch, at=at, etag=etag)
        return self._json(request)

    def neighborhood(
        self,
        domain: str,
        refs: Sequence[str],
        *,
        depth: int | None = None,
        relations: Sequence[str] | None = None,
        values: bool | None = None,
        branch: str | None = None,
        at: str | None = None,
        etag: str | None = None,
    ) -> Answer:
        """The graph around some Records, breadth first up to `depth`."""
        request = routes.neighborhood(
            domain,
            refs,
            depth=depth,
            relations=relations,
            values=values,
            branch=branch,
            at=at,
            etag=etag,
        )
        return self._json(request)

    # -- agent reads: context packs, search, resolve, health ---------------------------------

    @overload
    def context(
        self,
        domain: str,
        *,
        refs: Sequence[str] | None = None,
        query: Mapping[str, Any] | None = None,
        search: str | None = None,
        lens: str | None = None,
        traits: Sequence[str] | None = None,
        relations: Sequence[str] | None = None,
        depth: int | None = None,
        budget_tokens: int | None = None,
        include_schema: bool | Literal["compact"] | None = None,
        include_recent_changes: bool | None = None,
        include_lineage: bool | None = None,
        since: str | None = None,
        branch: str | None = None,
        format: Literal["json"] = "json",
        etag: str | None = None,
    ) -> Answer: ...

    @overload
    def context(
        self,
        domain: str,
        *,
        refs: Sequence[str] | None = None,
        query: Mapping[str, Any] | None = None,
        search: str | None = None,
        lens: str | None = None,
        traits: Sequence[str] | None = None,
        relations: Sequence[str] | None = None,
        depth: int | None = None,
        budget_tokens: int | None = None,
        include_schema: bool | Literal["compact"] | None = None,
        include_recent_changes: bool | None = None,
        include_lineage: bool | None = None,
        since: str | None = None,
        branch: str | None = None,
        format: Literal["markdown"],
        etag: str | None = None,
    ) -> Text: ...

    @overload
    def context(
        self,
        domain: str,
        *,
        refs: Sequence[str] | None = None,
        query: Mapping[str, Any] | None = None,
        search: str | None = None,
        lens: str | None = None,
        traits: Sequence[str] | None = None,
        relations: Sequence[str] | None = None,
        depth: int | None = None,
        budget_tokens: int | None = None,
        include_schema: bool | Literal["compact"] | None = None,
        include_recent_changes: bool | None = None,
        include_lineage: bool | None = None,
        since: str | None = None,
        branch: str | None = None,
        format: ExplainFormat,
        etag: str | None = None,
    ) -> Answer | Text: ...

    def context(
        self,
        domain: str,
        *,
        refs: Sequence[str] | None = None,
        query: Mapping[str, Any] | None = None,
        search: str | None = None,
        lens: str | None = None,
        traits: Sequence[str] | None = None,
        relations: Sequence[str] | None = None,
        depth: int | None = None,
        budget_tokens: int | None = None,
        include_schema: bool | Literal["compact"] | None = None,
        include_recent_changes: bool | None = None,
        include_lineage: bool | None = None,
        since: str | None = None,
        branch: str | None = None,
        format: ExplainFormat = "json",
        etag: str | None = None,
    ) -> Answer | Text:
        """A context pack (agents.md section 1): give exactly one of `refs`, `query`, `search`.

        `format="markdown"` answers the pack as Markdown text for a prompt (a `Text`).
        """
        members = {
            "refs": refs,
            "query": query,
            "search": search,
            "lens": lens,
            "traits": traits,
            "relations": relations,
            "depth": depth,
            "budget_tokens": budget_tokens,
            "include_schema": include_schema,
            "include_recent_changes": include_recent_changes,
            "include_lineage": include_lineage,
            "since": since,
            "branch": branch,
            "format": format if format == "markdown" else None,
        }
        request = routes.context(domain, members, etag=etag)
        if request.expect == "markdown":
            return text_answer(self._send(request))
        return self._json(request)

    def search(
        self,
        domain: str,
        q: str,
        *,
        kinds: Sequence[str] | None = None,
        traits: Sequence[str] | None = None,
        lens: str | None = None,
        mode: Literal["lexical", "semantic", "hybrid"] | None = None,
        query_vector: Sequence[float] | None = None,
        limit: int | None = None,
        branch: str | None = None,
        etag: str | None = None,
    ) -> Answer:
        """Records by text (or by vector), by Kind, Trait or lens."""
        members = {
            "q": q,
            "kinds": kinds,
            "traits": traits,
            "lens": lens,
            "mode": mode,
            "query_vector": query_vector,
            "limit": limit,
            "branch": branch,
        }
        return self._json(routes.search(domain, members, etag=etag))

    def resolve(
        self,
        domain: str,
        text: str,
        *,
        query_vector: Sequence[float] | None = None,
        record_misses: bool | None = None,
        coverage: bool | None = None,
        branch: str | None = None,
        at: str | None = None,
        etag: str | None = None,
    ) -> Answer:
        """Which Kinds, Attributes and stored values the words of a question mean."""
        members = {
            "text": text,
            "query_vector": query_vector,
            "record_misses": record_misses,
            "coverage": coverage,
            "branch": branch,
            "at": at,
        }
        return self._json(routes.resolve(domain, members, etag=etag))

    @overload
    def health(
        self,
        domain: str,
        kind: str | None = None,
        *,
        branch: str | None = None,
        at: str | None = None,
        format: Literal["json"] = "json",
        etag: str | None = None,
    ) -> Answer: ...

    @overload
    def health(
        self,
        domain: str,
        kind: str | None = None,
        *,
        branch: str | None = None,
        at: str | None = None,
        format: Literal["markdown"],
        etag: str | None = None,
    ) -> Text: ...

    def health(
        self,
        domain: str,
        kind: str | None = None,
        *,
        branch: str | None = None,
        at: str | None = None,
        format: ExplainFormat = "json",
        etag: str | None = None,
    ) -> Answer | Text:
        """How sound the data of a branch is (agents.md section 6), for one Kind or all."""
        request = routes.health(domain, kind, branch=branch, at=at, format=format, etag=etag)
        if request.expect == "markdown":
            return text_answer(self._send(request))
        return self._json(request)

    # -- Revisions, branches and tags ---------------------------------------------------------

    def diff(
        self, domain: str, from_revision: str, to_revision: str, *, etag: str | None = None
    ) -> Answer:
        """What changed between two Revisions (ids, unique prefixes or tags)."""
        return self._json(routes.diff(domain, from_revision, to_revision, etag=etag))

    def branches(self, domain: str) -> Answer:
        """The branches of a Domain the caller may read."""
        return self._json(routes.branches(domain))

    def changes(
        self,
        domain: str,
        branch: str,
        *,
        since: str | None = None,
        kinds: Sequence[str] | None = None,
        limit: int | None = None,
        etag: str | None = None,
    ) -> Answer:
        """The revision events of `branch` after Revision `since`, oldest first (polling feed).

        `next_since` continues; `more` says a page was cut. A `since` off the branch's
        first-parent history answers 409: take a new context pack and follow from its revision.
        """
        request = routes.changes(domain, branch, since=since, kinds=kinds, limit=limit, etag=etag)
        return self._json(request)

    def events(
        self,
        domain: str,
        branch: str,
        *,
        kinds: Sequence[str] | None = None,
        last_event_id: str | None = None,
        reconnect: bool = True,
    ) -> Iterator[dict[str, Any]]:
        """The events committed on `branch` as they come (its Server-Sent Events stream).

        Revision events (`type` revision.committed) and Operation events (operation.<side
        effect>), each a dict with its `sequence`. Without `last_event_id` the stream starts
        at the next commit; after Keeper closes it (agents.feed.max_connection_s) or the
        connection drops, it reconnects after the stream's `retry:` with Last-Event-ID, so
        nothing is missed or repeated (`reconnect=False` ends the iteration instead).
        `kinds` keeps only Revisions changing those Kinds. Problem answers raise.
        """
        route = routes.events(domain, branch, kinds=kinds)

        def request(headers: dict[str, str]) -> httpx.Request:
            return build_request(self._http, replace(route, headers=headers))

        return follow(
            self._http,
            request,
            Follower(last_event_id),
            reconnect=reconnect,
            sleep=time.sleep,
        )

    def branch(self, domain: str, name: str) -> Answer:
        """One branch and its head Revision."""
        return self._json(routes.branch(domain, name))

    def create_branch(
        self,
        domain: str,
        name: str,
        *,
        from_branch: str | None = None,
        at: str | None = None,
        mode: BranchMode | None = None,
    ) -> Answer:
        """Create a branch from `from_branch` (default: the default branch) at `at` (default: head).

        `mode` is `overlay` (Keeper's default: only changed rows are stored) or `copy`.
        """
        request = routes.create_branch(domain, name, from_branch=from_branch, at=at, mode=mode)
        return self._json(request)

    def tags(self, domain: str) -> Answer:
        """The tags of a Domain and the Revisions they name."""
        return self._json(routes.tags(domain))

    def tag(self, domain: str, name: str) -> Answer:
        """One tag and its Revision."""
        return self._json(routes.tag(domain, name))

    # -- writes: Operations -------------------------------------------------------------------

    def operations(
        self,
        domain: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        etag: str | None = None,
    ) -> Answer:
        """The Operations the caller may read on the branch (`operations`), each with its
        parameters and their rules, edits, review (data and a sentence), side effects,
        permissions and `execute.allowed` (whether the caller's grants let it run there)."""
        return self._json(routes.operations(domain, branch=branch, at=at, etag=etag))

    def operation(
        self,
        domain: str,
        name: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        etag: str | None = None,
    ) -> Answer:
        """One Operation, as `operations` lists it; `NotFound` (`operation-not-found`) for one
        that does not exist or that the caller's grants hide, as `execute` answers."""
        return self._json(routes.operation(domain, name, branch=branch, at=at, etag=etag))

    def execute(
        self,
        domain: str,
        operation: str,
        parameters: Mapping[str, Any],
        *,
        branch: str | None = None,
        dry_run: bool | None = None,
        expected_head: str | None = None,
        message: str | None = None,
        idempotency_key: str | None = None,
        task: str | None = None,
        intent: str | None = None,
        auto_propose: bool | None = None,
        auto_merge: bool | None = None,
    ) -> Answer:
        """Run an Operation of the schema with `parameters` (docs/client.md, Writes).

        `status` says what happened: `committed`, `dry_run` (`dry_run=True`: checked and planned,
        nothing written), `merged` (200), or `proposed` and `conflicts` (202: the write waits on
        a Proposal). A write that needs review runs, given a `task`, on the caller's task branch
        for it, which Keeper opens along with a Proposal (agents do so by default; other callers
        add `auto_propose=True`); `intent` says why (the Proposal's description). `expected_head`
        refuses the write (`StaleHead`) unless the branch is still at that Revision.
        `idempotency_key` is sent as the `Idempotency-Key` header: the same key again answers the
        first execution's answer, with `replayed` True, and runs nothing.

        Raises:
            Conflict: 409 `review-required` (the branch is protected: write on a task or branch
                of your own; `extra` holds `branch`, `proposals`, `reason` and `next`) or
                `StaleHead`.
            ValuesInvalid: 422, the parameters break the Operation's rules (`issues`).
            NotFound: 404 `operation-not-found`.
        """
        request = routes.execute(
            domain,
            operation,
            parameters,
            branch=branch,
            dry_run=dry_run,
            expected_head=expected_head,
            message=message,
            idempotency_key=idempotency_key,
            task=task,
            intent=intent,
            auto_propose=auto_propose,
            auto_merge=auto_merge,
        )
        return self._json(request)

    # -- writes: Proposals and their Conflicts ------------------------------------------------

    def proposals(
        self,
        domain: str,
        *,
        status: ProposalStatus | None = None,
        assigned_to_me: bool = False,
        created_by_me: bool = False,
        limit: int | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Every Proposal of a Domain, page after page (`limit`: Proposals per page).

        `status` keeps those `open`, `merged` or `closed`; `assigned_to_me` those waiting on the
        caller's review, `created_by_me` the caller's own.
        """
        request = routes.proposals(
            domain,
            status=status,
            assigned_to_me=assigned_to_me,
            created_by_me=created_by_me,
            limit=limit,
            cursor=None,
        )
        return self._items(request, "proposals")

    def proposal(self, domain: str, proposal_id: str) -> Answer:
        """One Proposal: its branches, status, approval, what blocks its merge and `next` steps."""
        return self._json(routes.proposal(domain, proposal_id))

    def open_proposal(
        self,
        domain: str,
        source: str,
        *,
        target: str | None = None,
        title: str | None = None,
        description: str | None = None,
    ) -> Answer:
        """Propose to merge the branch `source` into `target`; answers the new Proposal (201).

        `target` defaults to the branch `source` was made from, `title` to "Merge <source> into
        <target>".
        """
        request = routes.open_proposal(
            domain, source, target=target, title=title, description=description
        )
        return self._json(request)

    def review_proposal(
        self, domain: str, proposal_id: str, verdict: Verdict, *, body: str | None = None
    ) -> Answer:
        """Review a Proposal (`approve`, `request_changes` or `comment`); answers the Proposal.

        Nobody approves their own Proposal: Keeper answers 409 `self-approval` (a `Conflict`).
        """
        return self._json(routes.review_proposal(domain, proposal_id, verdict, body=body))

    def merge_proposal(
        self,
        domain: str,
        proposal_id: str,
        *,
        message: str | None = None,
        expected_source_head: str | None = None,
    ) -> Answer:
        """Merge a Proposal into its target; answers the merged Proposal.

        `expected_source_head` (the source head you reviewed) refuses the merge with 409
        `stale-head` when the source branch moved since.

        Raises:
            Conflict: 409 `merge-blocked` (approvals pending, changes requested:
                `extra["blockers"]`), or 409 when the merge meets Conflicts (see `conflicts`,
                `resolve_conflict`).
        """
        return self._json(
            routes.merge_proposal(
                domain, proposal_id, message=message, expected_source_head=expected_source_head
            )
        )

    def close_proposal(self, domain: str, proposal_id: str) -> Answer:
        """Close a Proposal without merging it; answers the closed Proposal."""
        return self._json(routes.close_proposal(domain, proposal_id))

    def conflicts(
        self, domain: str, proposal_id: str, *, status: ConflictStatus | None = None
    ) -> Answer:
        """The Conflicts of a Proposal (`conflicts`), all or those `open` or `resolved`."""
        return self._json(routes.conflicts(domain, proposal_id, status=status))

    def resolve_conflict(
        self,
        domain: str,
        proposal_id: str,
        conflict_id: str,
        resolution: ConflictChoice,
        *,
        value: Any = NO_VALUE,
    ) -> Answer:
        """Resolve a Conflict: take the `source`'s value, the `target`'s, or `value` given here.

        `value` (for `resolution="value"`) is sent as given, None as JSON null; left out, it is
        not sent. Keeper tries the merge again and answers the Proposal (`conflicts`: how many are
        still open, how many resolved).
        """
        request = routes.resolve_conflict(domain, proposal_id, conflict_id, resolution, value=value)
        return self._json(request)

    # -- writes: merging a branch -------------------------------------------------------------

    def merge_branch(
        self,
        domain: str,
        branch: str,
        *,
        into: str | None = None,
        message: str | None = None,
        expected_head: str | None = None,
        resolutions: Sequence[Mapping[str, Any]] | None = None,
    ) -> Answer:
        """Merge `branch` into `into` (default: the branch it was made from) directly.

        `result` is `fast_forward`, `merge` or `up_to_date`, with the `revision` it made.
        `resolutions` settle Conflicts ahead: `{"ref": "Supplier/S-1001", "attribute":
        "risk_score", "resolution": "source" | "target" | "value", "value": ...}`.

        Raises:
            Conflict: 409 `merge-conflicts` (`extra["conflicts"]`: resolve them with
                `resolutions`), or 409 `review-required` for a protected target (open a Proposal).
        """
        request = routes.merge_branch(
            domain,
            branch,
            into=into,
            message=message,
            expected_head=expected_head,
            resolutions=resolutions,
        )
        return self._json(request)

    # -- the audit ----------------------------------------------------------------------------

    def audit(
        self,
        domain: str,
        *,
        kind: AuditKind | None = None,
        principal: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Answer:
        """One page of the read and write audit of a Domain, newest first (`entries`,
        `next_cursor`); for the Domain's administrators (domain.settings), 403 for others.

        `kind` keeps reads or writes only, `principal` one principal's, `since` and `until`
        (ISO 8601 times with a zone) a span of time.
        """
        request = routes.audit(
            domain,
            kind=kind,
            principal=principal,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
        return self._json(request)
