"""The requests of Keeper's routes, reads and writes, built once for both clients.

Each function returns an `ApiRequest`: method, path, query parameters, JSON body and headers. The
sync and async clients only send it and read the answer (`answers.json_answer`,
`answers.text_answer`), so both speak exactly the same dialect. Parameters that are None are left
out: Keeper applies its defaults.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Literal, TypedDict

from lorebase_client.paths import api_path, domain_path, record_path, segment

Method = Literal["GET", "POST", "PATCH", "DELETE"]
Expect = Literal["json", "markdown"]
BranchMode = Literal["overlay", "copy"]
ExplainFormat = Literal["json", "markdown"]
SchemaFormat = Literal["json", "compact", "markdown"]
ProposalStatus = Literal["open", "merged", "closed"]
Verdict = Literal["approve", "request_changes", "comment"]
ConflictStatus = Literal["open", "resolved"]
ConflictChoice = Literal["source", "target", "value"]
"""How a Conflict is resolved: the source's value, the target's, or a `value` given."""
ParamValue = str | int | bool | None

IDEMPOTENCY_KEY_HEADER = "Idempotency-Key"


class NoValue(Enum):
    """The type of `NO_VALUE`."""

    NO_VALUE = "no value"


NO_VALUE = NoValue.NO_VALUE
"""No value given: not sent at all (None is sent as JSON null)."""


@dataclass(frozen=True)
class ApiRequest:
    """One request to Keeper, before it is sent."""

    method: Method
    path: str
    params: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    etag: str | None = None
    """Sent as If-None-Match: a 304 then answers `not_modified`."""
    expect: Expect = "json"
    headers: dict[str, str] = field(default_factory=dict)
    """Headers of this request only (`Idempotency-Key`)."""

    def with_params(self, **params: ParamValue) -> ApiRequest:
        """The same request with other query parameters (paging continues with these)."""
        merged = {**self.params, **query_params(**params)}
        return replace(self, params=merged)


def query_params(**params: ParamValue) -> dict[str, str]:
    """Query parameters as text, None left out, booleans as `true`/`false`."""
    found: dict[str, str] = {}
    for name, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            found[name] = "true" if value else "false"
        else:
            found[name] = str(value)
    return found


def _get(
    path: str, *, etag: str | None = None, expect: Expect = "json", **params: ParamValue
) -> ApiRequest:
    return ApiRequest("GET", path, query_params(**params), etag=etag, expect=expect)


def _post(
    domain: str,
    route: str,
    body: Mapping[str, Any],
    *,
    etag: str | None = None,
    expect: Expect = "json",
    headers: Mapping[str, str] | None = None,
) -> ApiRequest:
    """A POST to `route` (path text under the Domain) of `body`, its None members left out."""
    document = {name: value for name, value in body.items() if value is not None}
    return ApiRequest(
        "POST",
        domain_path(domain, route),
        body=document,
        etag=etag,
        expect=expect,
        headers=dict(headers or {}),
    )


# -- the caller and the Domains ---------------------------------------------------------------


def whoami() -> ApiRequest:
    return _get(api_path("auth", "whoami"))


def oidc_configuration() -> ApiRequest:
    return _get(api_path("auth", "oidc"))


def browser_session() -> ApiRequest:
    return _get(api_path("auth", "session"))


def healthz() -> ApiRequest:
    return _get("/healthz")


def domains() -> ApiRequest:
    return _get(api_path("domains"))


# -- schema, Records, Links -------------------------------------------------------------------


def schema(
    domain: str,
    *,
    branch: str | None,
    at: str | None,
    etag: str | None,
    format: SchemaFormat = "json",
    kinds: Sequence[str] | None = None,
) -> ApiRequest:
    """GET /schema; `kinds` joined by commas (an empty list is sent, and refused, as it is)."""
    return _get(
        domain_path(domain, "schema"),
        etag=etag,
        expect="markdown" if format == "markdown" else "json",
        branch=branch,
        at=at,
        format=None if format == "json" else format,
        kinds=None if kinds is None else ",".join(kinds),
    )


def records(
    domain: str,
    kind: str,
    *,
    branch: str | None,
    at: str | None,
    limit: int | None,
    cursor: str | None,
    etag: str | None,
) -> ApiRequest:
    path = domain_path(domain, "kinds", segment(kind, "Kind"), "records")
    return _get(path, etag=etag, branch=branch, at=at, limit=limit, cursor=cursor)


def record(
    domain: str,
    kind: str,
    key: str,
    *,
    branch: str | None,
    at: str | None,
    links: bool,
    lineage: bool,
    etag: str | None,
) -> ApiRequest:
    return _get(
        record_path(domain, kind, key),
        etag=etag,
        branch=branch,
        at=at,
        links=links or None,
        lineage=lineage or None,
    )


def links(
    domain: str,
    kind: str,
    key: str,
    relation: str,
    *,
    branch: str | None,
    at: str | None,
    limit: int | None,
    cursor: str | None,
    etag: str | None,
) -> ApiRequest:
    path = record_path(domain, kind, key, "links", segment(relation, "Relation"))
    return _get(path, etag=etag, branch=branch, at=at, limit=limit, cursor=cursor)


# -- why a Record is what it is ---------------------------------------------------------------


def history(
    domain: str,
    kind: str,
    key: str,
    *,
    branch: str | None,
    at: str | None,
    values: bool,
    limit: int | None,
    cursor: str | None,
    etag: str | None,
    attributes: Sequence[str] | None = None,
) -> ApiRequest:
    return _get(
        record_path(domain, kind, key, "history"),
        etag=etag,
        branch=branch,
        at=at,
        values=values or None,
        limit=limit,
        cursor=cursor,
        attributes=",".join(attributes) if attributes is not None else None,
    )


def lineage(
    domain: str, kind: str, key: str, *, branch: str | None, at: str | None, etag: str | None
) -> ApiRequest:
    return _get(record_path(domain, kind, key, "lineage"), etag=etag, branch=branch, at=at)


def explain(
    domain: str,
    kind: str,
    key: str,
    *,
    branch: str | None,
    at: str | None,
    format: ExplainFormat,
    etag: str | None,
) -> ApiRequest:
    return _get(
        record_path(domain, kind, key, "explain"),
        etag=etag,
        expect=format,
        branch=branch,
        at=at,
        format="markdown" if format == "markdown" else None,
    )


# -- queries and the graph (POST reads) -------------------------------------------------------


def jsonable(value: object) -> Any:
    """`value` with mappings as dicts and sequences (not text) as lists, so it dumps as JSON."""
    if isinstance(value, Mapping):
        return {str(name): jsonable(item) for name, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [jsonable(item) for item in value]
    return value


def query_members(**members: object) -> dict[str, Any]:
    """The members of a query document given as keywords, those that are None left out."""
    return {name: jsonable(value) for name, value in members.items() if value is not None}


def query(
    domain: str,
    document: Mapping[str, Any] | None,
    members: Mapping[str, Any],
    *,
    etag: str | None = None,
) -> ApiRequest:
    """POST /query: `document` with `members` (those not None) set over it."""
    body = jsonable(document or {})
    body.update({name: value for name, value in members.items() if value is not None})
    return _post(domain, "query", body, etag=etag)


def traverse(
    domain: str,
    start: Sequence[str],
    path: Sequence[str],
    *,
    limit: int | None,
    branch: str | None,
    at: str | None,
    etag: str | None = None,
) -> ApiRequest:
    body = {"start": list(start), "path": list(path), "limit": limit, "branch": branch, "at": at}
    return _post(domain, "traverse", body, etag=etag)


def neighborhood(
    domain: str,
    refs: Sequence[str],
    *,
    depth: int | None,
    relations: Sequence[str] | None,
    values: bool | None,
    branch: str | None,
    at: str | None,
    etag: str | None = None,
) -> ApiRequest:
    body = {
        "refs": list(refs),
        "depth": depth,
        "relations": None if relations is None else list(relations),
        "values": values,
        "branch": branch,
        "at": at,
    }
    return _post(domain, "neighborhood", body, etag=etag)


# -- agent reads: context packs, search, resolve, health -------------------------------------


class ContextOptions(TypedDict, total=False):
    """What a context pack holds (POST /context, docs/context.md), the keywords of the clients'
    `context` and `context_markdown`: exactly one seed selector of `refs`, `query` and `search`;
    an option left out (or None) takes the lens's or Keeper's default."""

    refs: Sequence[str] | None
    """The seed Records, as refs (`Supplier/S-1001`)."""
    query: Mapping[str, Any] | None
    """The seeds as a query of the DSL (docs/query.md)."""
    search: str | None
    """The seeds as search text."""
    lens: str | None
    """A lens of the schema: its Relations, depth, sections and budget."""
    traits: Sequence[str] | None
    relations: Sequence[str] | None
    """The Relations to follow from the seeds."""
    depth: int | None
    budget_tokens: int | None
    include_schema: bool | Literal["compact"] | None
    include_recent_changes: bool | None
    include_lineage: bool | None
    since: str | None
    """The Revision the recent changes follow."""
    branch: str | None


CONTEXT_OPTIONS = tuple(ContextOptions.__annotations__)
"""The names of the context options, in the order they are sent."""


def context(
    domain: str, options: ContextOptions, *, markdown: bool = False, etag: str | None = None
) -> ApiRequest:
    """POST /context: the options that are not None; `markdown` asks for the pack as text.

    Raises:
        TypeError: an option that is not one of `ContextOptions`, as for an unknown keyword.
    """
    unknown = sorted(set(options) - set(CONTEXT_OPTIONS))
    if unknown:
        raise TypeError(f"unknown context options {unknown}; the options are {CONTEXT_OPTIONS}")
    members = {name: options.get(name) for name in CONTEXT_OPTIONS}
    body = query_members(**members, format="markdown" if markdown else None)
    return _post(domain, "context", body, etag=etag, expect="markdown" if markdown else "json")


def search(domain: str, members: Mapping[str, Any], *, etag: str | None = None) -> ApiRequest:
    return _post(domain, "search", query_members(**members), etag=etag)


def resolve(domain: str, members: Mapping[str, Any], *, etag: str | None = None) -> ApiRequest:
    return _post(domain, "resolve", query_members(**members), etag=etag)


def health(
    domain: str,
    kind: str | None,
    *,
    branch: str | None,
    at: str | None,
    format: ExplainFormat,
    etag: str | None,
) -> ApiRequest:
    if kind is None:
        path = domain_path(domain, "health")
    else:
        path = domain_path(domain, "kinds", segment(kind, "Kind"), "health")
    return _get(
        path,
        etag=etag,
        expect=format,
        branch=branch,
        at=at,
        format="markdown" if format == "markdown" else None,
    )


# -- Revisions, branches and tags -------------------------------------------------------------


def diff(domain: str, from_revision: str, to_revision: str, *, etag: str | None) -> ApiRequest:
    params = query_params(**{"from": from_revision, "to": to_revision})
    return ApiRequest("GET", domain_path(domain, "diff"), params, etag=etag)


def branches(domain: str) -> ApiRequest:
    return _get(domain_path(domain, "branches"))


def branch(domain: str, name: str) -> ApiRequest:
    return _get(domain_path(domain, "branches", segment(name, "branch")))


def changes(
    domain: str,
    branch: str,
    *,
    since: str | None,
    kinds: Sequence[str] | None,
    limit: int | None,
    etag: str | None,
) -> ApiRequest:
    return _get(
        domain_path(domain, "branches", segment(branch, "branch"), "changes"),
        etag=etag,
        since=since,
        kinds=",".join(kinds) if kinds else None,
        limit=limit,
    )


def events(domain: str, branch: str, *, kinds: Sequence[str] | None) -> ApiRequest:
    """The event stream of a branch (Server-Sent Events: see `events.follow`)."""
    return _get(
        domain_path(domain, "branches", segment(branch, "branch"), "events"),
        kinds=",".join(kinds) if kinds else None,
    )


def create_branch(
    domain: str,
    name: str,
    *,
    from_branch: str | None,
    at: str | None,
    mode: BranchMode | None,
) -> ApiRequest:
    body = {"name": name, "from": from_branch, "at": at, "mode": mode}
    return _post(domain, "branches", body)


def tags(domain: str) -> ApiRequest:
    return _get(domain_path(domain, "tags"))


def tag(domain: str, name: str) -> ApiRequest:
    return _get(domain_path(domain, "tags", segment(name, "tag")))


# -- writes: Operations -----------------------------------------------------------------------


def operations(domain: str, *, branch: str | None, at: str | None, etag: str | None) -> ApiRequest:
    """GET /operations: the Operations the caller may read, with their parameters."""
    return _get(domain_path(domain, "operations"), etag=etag, branch=branch, at=at)


def operation(
    domain: str, name: str, *, branch: str | None, at: str | None, etag: str | None
) -> ApiRequest:
    """GET /operations/{name}: one Operation."""
    path = domain_path(domain, "operations", segment(name, "Operation"))
    return _get(path, etag=etag, branch=branch, at=at)


def execute(
    domain: str,
    operation: str,
    parameters: Mapping[str, Any],
    *,
    branch: str | None,
    dry_run: bool | None,
    expected_head: str | None,
    message: str | None,
    idempotency_key: str | None,
    task: str | None,
    intent: str | None,
    auto_propose: bool | None,
    auto_merge: bool | None,
) -> ApiRequest:
    """POST /operations/{operation}/execute.

    The idempotency key travels as the `Idempotency-Key` header only, never in the body: one
    place, the one HTTP caches and proxies know.
    """
    body = {
        "parameters": jsonable(parameters),
        "branch": branch,
        "dry_run": dry_run,
        "expected_head": expected_head,
        "message": message,
        "task": task,
        "intent": intent,
        "auto_propose": auto_propose,
        "auto_merge": auto_merge,
    }
    route = "/".join(("operations", segment(operation, "Operation"), "execute"))
    headers = {} if idempotency_key is None else {IDEMPOTENCY_KEY_HEADER: idempotency_key}
    return _post(domain, route, body, headers=headers)


# -- writes: Proposals and their Conflicts ----------------------------------------------------


def _proposal_route(proposal_id: str, *parts: str) -> str:
    return "/".join(("proposals", segment(proposal_id, "Proposal"), *parts))


def proposals(
    domain: str,
    *,
    status: ProposalStatus | None,
    assigned_to_me: bool,
    created_by_me: bool,
    limit: int | None,
    cursor: str | None,
) -> ApiRequest:
    return _get(
        domain_path(domain, "proposals"),
        status=status,
        assigned="me" if assigned_to_me else None,
        created_by="me" if created_by_me else None,
        limit=limit,
        cursor=cursor,
    )


def proposal(domain: str, proposal_id: str) -> ApiRequest:
    return _get(domain_path(domain, _proposal_route(proposal_id)))


def open_proposal(
    domain: str,
    source: str,
    *,
    target: str | None,
    title: str | None,
    description: str | None,
) -> ApiRequest:
    body = {"source": source, "target": target, "title": title, "description": description}
    return _post(domain, "proposals", body)


def review_proposal(
    domain: str, proposal_id: str, verdict: Verdict, *, body: str | None
) -> ApiRequest:
    document = {"verdict": verdict, "body": body}
    return _post(domain, _proposal_route(proposal_id, "reviews"), document)


def merge_proposal(
    domain: str, proposal_id: str, *, message: str | None, expected_source_head: str | None
) -> ApiRequest:
    return _post(
        domain,
        _proposal_route(proposal_id, "merge"),
        {"message": message, "expected_source_head": expected_source_head},
    )


def close_proposal(domain: str, proposal_id: str) -> ApiRequest:
    return _post(domain, _proposal_route(proposal_id, "close"), {})


def conflicts(domain: str, proposal_id: str, *, status: ConflictStatus | None) -> ApiRequest:
    return _get(domain_path(domain, _proposal_route(proposal_id, "conflicts")), status=status)


def resolve_conflict(
    domain: str,
    proposal_id: str,
    conflict_id: str,
    resolution: ConflictChoice,
    *,
    value: Any = NO_VALUE,
) -> ApiRequest:
    """POST .../conflicts/{conflict_id}/resolve; `value` is sent when given, even None (null)."""
    route = _proposal_route(proposal_id, "conflicts", segment(conflict_id, "Conflict"), "resolve")
    body: dict[str, Any] = {"resolution": resolution}
    if value is not NO_VALUE:
        body["value"] = jsonable(value)
    return ApiRequest("POST", domain_path(domain, route), body=body)


# -- writes: merging a branch -----------------------------------------------------------------


def merge_branch(
    domain: str,
    branch: str,
    *,
    into: str | None,
    message: str | None,
    expected_head: str | None,
    resolutions: Sequence[Mapping[str, Any]] | None,
) -> ApiRequest:
    """POST /branches/{branch}/merge; each resolution names `ref`, `attribute`, `resolution` and,
    to take a value of its own, `value` (sent as given, null included)."""
    body = {
        "into": into,
        "message": message,
        "expected_head": expected_head,
        "resolutions": None if resolutions is None else jsonable(resolutions),
    }
    return _post(domain, "/".join(("branches", segment(branch, "branch"), "merge")), body)


# -- the agent trace and the audit -------------------------------------------------------------

AuditKind = Literal["read", "write"]


def _trace_session_path(session_id: str, *parts: str) -> str:
    return api_path("trace", "sessions", segment(session_id, "session id"), *parts)


def trace_note(
    session_id: str, text: str, *, step: int | None, domain_id: str | None, path: str | None = None
) -> ApiRequest:
    body = {"text": text, "step": step, "domain_id": domain_id}
    document = {name: value for name, value in body.items() if value is not None}
    where = (
        _trace_session_path(session_id, "notes")
        if path is None
        else path.replace("{session}", segment(session_id, "session id"))
    )
    return ApiRequest("POST", where, body=document)


def trace_sessions(
    *, actor: str | None, domain_id: str | None, limit: int | None, cursor: str | None
) -> ApiRequest:
    return _get(
        api_path("trace", "sessions"), actor=actor, domain_id=domain_id, limit=limit, cursor=cursor
    )


def trace_session(session_id: str, *, actor: str | None) -> ApiRequest:
    return _get(_trace_session_path(session_id), actor=actor)


def audit(
    domain: str,
    *,
    kind: AuditKind | None,
    principal: str | None,
    since: str | None,
    until: str | None,
    limit: int | None,
    cursor: str | None,
) -> ApiRequest:
    return _get(
        domain_path(domain, "audit"),
        kind=kind,
        principal=principal,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )


# -- paging -----------------------------------------------------------------------------------


def page_items(answer: Mapping[str, Any], member: str) -> list[dict[str, Any]]:
    """The items of one page (`records`, `links`, `changes`)."""
    items = answer.get(member)
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def next_page(request: ApiRequest, answer: Mapping[str, Any]) -> ApiRequest | None:
    """The request of the page after `answer` (None after the last one).

    It is read at the Revision of the page before, so every page of one walk comes from the
    same Revision even while the branch moves on.
    """
    cursor = answer.get("next_cursor")
    if not isinstance(cursor, str) or not cursor:
        return None
    revision = answer.get("revision")
    return request.with_params(cursor=cursor, at=revision if isinstance(revision, str) else None)
