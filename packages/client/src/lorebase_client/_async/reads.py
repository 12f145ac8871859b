"""`AsyncReads`: the reads of `AsyncLorebaseClient`: the caller and the Domains, schema, Records
and Links, their history and explanations, queries and the graph, the agent reads
(docs/agents.md: context packs, search, resolve, health), Revisions, branches and tags, and
following a branch (the polling feed `changes` and the event stream `events`, docs/feed.md).

Each method builds its request in routes.py and returns the answer (see `AsyncClientBase`). A
context pack comes as JSON (`context`) or as Markdown for a prompt (`context_markdown`), with the
same options (`ContextOptions`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Literal, Unpack, overload

from lorebase_client import routes
from lorebase_client._async.base import AsyncClientBase
from lorebase_client._async.event_stream import follow
from lorebase_client.answers import Answer, Text
from lorebase_client.events import Follower
from lorebase_client.routes import ContextOptions, ExplainFormat, SchemaFormat


class AsyncReads(AsyncClientBase):
    """Every read of Keeper's API but the writes' own (the methods of `AsyncLorebaseClient`)."""

    # -- the caller and the Domains -----------------------------------------------------------

    async def whoami(self) -> Answer:
        """The caller: principal, type, how it authenticated, and its grants."""
        return await self._json(routes.whoami())

    async def oidc_configuration(self) -> Answer:
        """How to sign in with OIDC (issuer, client_id, endpoints, scopes, audience; no secret)."""
        return await self._json(routes.oidc_configuration())

    async def browser_session(self) -> Answer:
        """The browser session of the caller's session cookie: principal, expiry, `csrf_token`."""
        return await self._json(routes.browser_session())

    async def healthz(self) -> Answer:
        """Whether Keeper runs (`{"status": "ok"}`; GET /healthz needs no credential)."""
        return await self._json(routes.healthz())

    async def domains(self) -> Answer:
        """The Domains the caller may read (`domains`: name, default_branch, created_at)."""
        return await self._json(routes.domains())

    # -- schema, Records, Links ---------------------------------------------------------------

    @overload
    async def schema(
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
    async def schema(
        self,
        domain: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        format: Literal["markdown"],
        kinds: Sequence[str] | None = None,
        etag: str | None = None,
    ) -> Text: ...

    async def schema(
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
        return await self._answer(request)

    async def records(
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
        return await self._json(request)

    def iter_records(
        self,
        domain: str,
        kind: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every Record of a Kind, page after page, all read at the Revision of the first page."""
        request = routes.records(
            domain, kind, branch=branch, at=at, limit=page_size, cursor=None, etag=None
        )
        return self._items(request, "records")

    async def record(
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
        return await self._json(request)

    async def links(
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
        return await self._json(request)

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
    ) -> AsyncIterator[dict[str, Any]]:
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

    async def history(
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
        return await self._json(request)

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
    ) -> AsyncIterator[dict[str, Any]]:
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

    async def lineage(
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
        return await self._json(routes.lineage(domain, kind, key, branch=branch, at=at, etag=etag))

    @overload
    async def explain(
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
    async def explain(
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

    async def explain(
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
        return await self._answer(request)

    # -- queries and the graph ----------------------------------------------------------------

    async def query(
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
        return await self._json(routes.query(domain, document, members, etag=etag))

    async def traverse(
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
        return await self._json(request)

    async def neighborhood(
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
        return await self._json(request)

    # -- agent reads: context packs, search, resolve, health ----------------------------------

    async def context(
        self, domain: str, *, etag: str | None = None, **options: Unpack[ContextOptions]
    ) -> Answer:
        """A context pack (agents.md section 1) as JSON: give exactly one of `refs`, `query`,
        `search` (the options: `ContextOptions`).

        Example:
            ```python
            pack = await client.context("supply", refs=["Supplier/S-1001"], lens="supplier_risk")
            head = pack["revision"]
            ```
        """
        return await self._json(routes.context(domain, options, etag=etag))

    async def context_markdown(
        self, domain: str, *, etag: str | None = None, **options: Unpack[ContextOptions]
    ) -> Text:
        """The context pack of `context` as Markdown text for a prompt (a `Text`)."""
        return await self._text(routes.context(domain, options, markdown=True, etag=etag))

    async def search(
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
        return await self._json(routes.search(domain, members, etag=etag))

    async def resolve(
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
        return await self._json(routes.resolve(domain, members, etag=etag))

    @overload
    async def health(
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
    async def health(
        self,
        domain: str,
        kind: str | None = None,
        *,
        branch: str | None = None,
        at: str | None = None,
        format: Literal["markdown"],
        etag: str | None = None,
    ) -> Text: ...

    async def health(
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
        return await self._answer(request)

    # -- Revisions, branches and tags ---------------------------------------------------------

    async def diff(
        self, domain: str, from_revision: str, to_revision: str, *, etag: str | None = None
    ) -> Answer:
        """What changed between two Revisions (ids, unique prefixes or tags)."""
        return await self._json(routes.diff(domain, from_revision, to_revision, etag=etag))

    async def branches(self, domain: str) -> Answer:
        """The branches of a Domain the caller may read."""
        return await self._json(routes.branches(domain))

    async def changes(
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
        return await self._json(request)

    def events(
        self,
        domain: str,
        branch: str,
        *,
        kinds: Sequence[str] | None = None,
        last_event_id: str | None = None,
        reconnect: bool = True,
    ) -> AsyncIterator[dict[str, Any]]:
        """The events committed on `branch` as they come (its Server-Sent Events stream).

        Revision events (`type` revision.committed) and Operation events (operation.<side
        effect>), each a dict with its `sequence`. Without `last_event_id` the stream starts
        at the next commit; after Keeper closes it (agents.feed.max_connection_s) or the
        connection drops, it reconnects after the stream's `retry:` with Last-Event-ID, so
        nothing is missed or repeated (`reconnect=False` ends the iteration instead).
        `kinds` keeps only Revisions changing those Kinds. Problem answers raise.
        """
        route = routes.events(domain, branch, kinds=kinds)
        return follow(self._http, route, Follower(last_event_id), reconnect=reconnect)

    async def branch(self, domain: str, name: str) -> Answer:
        """One branch and its head Revision."""
        return await self._json(routes.branch(domain, name))

    async def tags(self, domain: str) -> Answer:
        """The tags of a Domain and the Revisions they name."""
        return await self._json(routes.tags(domain))

    async def tag(self, domain: str, name: str) -> Answer:
        """One tag and its Revision."""
        return await self._json(routes.tag(domain, name))
