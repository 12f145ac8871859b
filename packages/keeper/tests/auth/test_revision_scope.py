"""Revisions are known only where their branch is readable (docs/auth.md, "Revisions and tags").

A matrix: every route that takes a Revision (an `at`, `since`, a diff end, a tag, a cursor that
pins a Revision) x a grant (the whole Domain, only main, main narrowed to Kinds) x a Revision that
exists only on a task branch (`agent/task-7`), named by full id, short prefix and tag (and, for a
diff end, by its branch). A caller that may not read the task branch gets exactly the answer of a
name that does not exist; a reader of the whole Domain does not, so the matrix is not vacuous.
Then: `GET /diff` with branch names.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from lorebase_core.changes import UpsertRecord
from lorebase_keeper.testing import Keys, assert_problem, grant_key
from lorebase_store import Store
from lorebase_store.testing import commit_changes, history_cursor

pytestmark = pytest.mark.anyio

TASK_BRANCH = "agent/task-7"
Request = tuple[str, str, dict[str, Any] | None]
"""Method, path below /api/v1/domains/supply, JSON body."""


@dataclass(frozen=True)
class Names:
    """Ways to name a Revision: one that exists only on the task branch, one that does not."""

    known: str
    unknown: str


@dataclass(frozen=True)
class World:
    keys: dict[str, str]
    """A key per grant of the matrix."""
    forms: dict[str, Names]
    """full id, short prefix, tag and branch."""


def _unknown_hex(known: set[str], length: int) -> str:
    """Hex digits of a length that start no Revision of the Domain."""
    return next(
        candidate
        for candidate in (f"{n:0{length}x}" for n in range(1, 1000))
        if not any(revision.startswith(candidate) for revision in known)
    )


QUERY = {"kind": "Supplier", "limit": 1}


@pytest.fixture
def world(supply: Store, keys: Keys) -> World:
    supply.create_branch("supply", TASK_BRANCH, created_by="usr_admin")
    task = commit_changes(
        supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 12})], branch=TASK_BRANCH
    )
    supply.create_tag("supply", "task-tag", task.id, created_by="usr_admin")
    supply.create_tag("supply", "v1", supply.log("supply")[0].id, created_by="usr_admin")
    known = {revision.id for revision in supply.log("supply")} | {task.id}
    keys_by_grant = {
        "whole-domain": grant_key(supply, "usr_all", domain="supply", role="viewer"),
        "only-main": grant_key(supply, "usr_main", domain="supply", role="viewer", branch="main"),
        "main-kinds": grant_key(
            supply, "usr_kinds", domain="supply", role="viewer", branch="main", kinds=["Supplier"]
        ),
    }
    forms = {
        "full-id": Names(task.id, _unknown_hex(known, 64)),
        "prefix": Names(task.id[:8], _unknown_hex(known, 8)),
        "tag": Names("task-tag", "nosuch-tag"),
        "branch": Names(TASK_BRANCH, "agent/task-0"),
    }
    return World(keys_by_grant, forms)


async def _query_digest(http: httpx.AsyncClient, key: str) -> str:
    """The query digest a cursor of `QUERY` carries, from the cursor of its first page."""
    first = await _ask(http, key, ("POST", "/query", QUERY))
    cursor = first.json()["next_cursor"]
    digest: str = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))["q"]
    return digest


def _query_cursor(digest: str, revision: str) -> str:
    from lorebase_core.query import encode_cursor

    return encode_cursor(revision, 1, digest)


Route = Callable[[str, str], Request]
"""The request of a route naming a Revision (and the digest a query cursor carries)."""


def _at(path: str) -> Route:
    return lambda name, _digest: ("GET", f"{path}?at={name}", None)


def _post_at(route: str, **members: Any) -> Route:
    return lambda name, _digest: ("POST", route, {**members, "at": name})


ROUTES: dict[str, Route] = {
    "schema": _at("/schema"),
    "records": _at("/kinds/Supplier/records"),
    "record": _at("/kinds/Supplier/records/S-1001"),
    "links": _at("/kinds/Supplier/records/S-1001/links/supplies"),
    "history": _at("/kinds/Supplier/records/S-1001/history"),
    "lineage": _at("/kinds/Supplier/records/S-1001/lineage"),
    "explain": _at("/kinds/Supplier/records/S-1001/explain"),
    "health": _at("/health"),
    "kind-health": _at("/kinds/Supplier/health"),
    "query": _post_at("/query", kind="Supplier"),
    "traverse": _post_at("/traverse", start=["Supplier/S-1007"], path=["supplies"]),
    "neighborhood": _post_at("/neighborhood", refs=["Supplier/S-1001"], depth=1),
    "resolve": _post_at("/resolve", text="Kavsen Alloys"),
    "create-branch": lambda name, _digest: (
        "POST",
        "/branches",
        {"name": "agent/mine", "from": "main", "at": name},
    ),
    "context-since": lambda name, _digest: (
        "POST",
        "/context",
        {"refs": ["Supplier/S-1001"], "since": name},
    ),
    "diff-from": lambda name, _digest: ("GET", f"/diff?from={name}&to=v1", None),
    "diff-to": lambda name, _digest: ("GET", f"/diff?from=v1&to={name}", None),
    "tag": lambda name, _digest: ("GET", f"/tags/{name}", None),
    "history-cursor": lambda name, _digest: (
        "GET",
        "/kinds/Supplier/records/S-1001/history?cursor="
        + history_cursor("Supplier/S-1001", 1, name),
        None,
    ),
    "query-cursor": lambda name, digest: (
        "POST",
        "/query",
        {**QUERY, "cursor": _query_cursor(digest, name)},
    ),
}
"""Every route that takes a Revision by name."""

DIFF_ROUTES = {"diff-from", "diff-to"}
GRANTS = ("whole-domain", "only-main", "main-kinds")


@pytest.fixture
def http_headers() -> dict[str, str]:
    """`http` sends no credential: each request names its caller."""
    return {}


async def _ask(http: httpx.AsyncClient, key: str, request: Request) -> httpx.Response:
    method, path, body = request
    return await http.request(
        method, f"/api/v1/domains/supply{path}", json=body, headers=Keys.header(key)
    )


@pytest.mark.parametrize("grant", [pytest.param(grant, id=grant) for grant in GRANTS])
@pytest.mark.parametrize("route", [pytest.param(name, id=name) for name in ROUTES])
async def test_a_revision_of_an_unreadable_branch_answers_like_an_unknown_one(
    http: httpx.AsyncClient, world: World, route: str, grant: str
) -> None:
    make = ROUTES[route]
    digest = await _query_digest(http, world.keys[grant])
    forms = [form for form in world.forms if form != "branch" or route in DIFF_ROUTES]
    for form in forms:
        names = world.forms[form]
        found = await _ask(http, world.keys[grant], make(names.known, digest))
        unknown = await _ask(http, world.keys[grant], make(names.unknown, digest))
        if grant == "whole-domain":
            # the task branch is readable: the Revision is known (elsewhere, or diffed)
            if route == "tag" and form != "tag":
                continue  # an id is not a tag, known or not
            assert found.text != unknown.text, (form, found.text)
            continue
        assert found.status_code == unknown.status_code, (form, found.text, unknown.text)
        assert found.headers["content-type"] == unknown.headers["content-type"]
        assert found.json().get("code") == unknown.json().get("code"), form
        same = _bytes_without(found, names.known, digest) == _bytes_without(
            unknown, names.unknown, digest
        )
        assert same, (form, found.text, unknown.text)


def _bytes_without(response: httpx.Response, name: str, digest: str) -> str:
    """The answer with the name it was asked about (and cursors made from it) blanked out, and
    the ETag a context pack repeats (a digest of the request, which names it)."""
    text = re.sub(r'"etag":"[^"]*\\"[^"]*\\""', '"etag":"<etag>"', response.text)
    for shown in (
        history_cursor("Supplier/S-1001", 1, name),
        _query_cursor(digest, name),
        name,
    ):
        text = text.replace(shown, "<name>")
    return text


async def test_the_matrix_covers_every_code_a_route_answers_an_unknown_name_with(
    http: httpx.AsyncClient, world: World
) -> None:
    """The unknown names are unknown for the reason the matrix means: not found, not a typo."""
    codes = set()
    key = world.keys["only-main"]
    digest = await _query_digest(http, key)
    for route, make in ROUTES.items():
        response = await _ask(http, key, make(world.forms["prefix"].unknown, digest))
        codes.add((route, response.status_code, response.json()["code"]))
    assert {code for _route, _status, code in codes} == {
        "revision-not-found",
        "tag-not-found",
    }


# -- GET /diff with branch names --------------------------------------------------------------


async def _diff(http: httpx.AsyncClient, key: str, start: str, end: str) -> httpx.Response:
    return await _ask(http, key, ("GET", f"/diff?from={start}&to={end}", None))


async def test_a_diff_between_branches_is_the_diff_between_their_heads(
    http: httpx.AsyncClient, world: World, supply: Store, keys: Keys
) -> None:
    main_head = supply.branch("supply", "main").head_revision
    task_head = supply.branch("supply", TASK_BRANCH).head_revision
    by_name = await _diff(http, keys.admin, "main", TASK_BRANCH)
    by_id = await _diff(http, keys.admin, str(main_head), str(task_head))
    assert by_name.status_code == 200, by_name.text
    assert by_name.json() == by_id.json()
    assert by_name.json()["from"] == main_head
    assert by_name.json()["to"] == task_head
    [entry] = by_name.json()["records"]
    assert entry["ref"] == "Supplier/S-1001"
    assert entry["after"]["risk_score"] == "12"


async def test_a_name_that_is_a_branch_and_a_tag_means_the_branch(
    http: httpx.AsyncClient, world: World, supply: Store, keys: Keys
) -> None:
    first = supply.log("supply")[-1].id
    supply.create_tag("supply", "release", first, created_by="usr_admin")
    supply.create_branch("supply", "release", created_by="usr_admin")  # at main's head
    response = await _diff(http, keys.admin, "release", "main")
    assert response.status_code == 200, response.text
    assert response.json()["from"] == supply.branch("supply", "main").head_revision
    assert response.json()["records"] == []


async def test_a_name_that_is_a_branch_and_a_revision_prefix_means_the_branch(
    http: httpx.AsyncClient, world: World, supply: Store, keys: Keys
) -> None:
    first = supply.log("supply")[-1].id
    supply.create_branch("supply", first[:8], created_by="usr_admin")  # at main's head
    branch_end = await _diff(http, keys.admin, first[:8], "main")
    assert branch_end.json()["from"] == supply.branch("supply", "main").head_revision
    revision_end = await _diff(http, keys.admin, first[:9], "main")  # more digits: the Revision
    assert revision_end.json()["from"] == first


async def test_an_unreadable_branch_end_answers_like_an_unknown_name(
    http: httpx.AsyncClient, world: World
) -> None:
    key = world.keys["only-main"]
    found = await _diff(http, key, "main", TASK_BRANCH)
    unknown = await _diff(http, key, "main", "agent/task-0")
    document = assert_problem(found, 404, "revision-not-found")
    assert document["detail"] == (
        f"No branch, Revision, tag or unique Revision prefix '{TASK_BRANCH}' in Domain 'supply'"
    )
    assert found.text.replace(TASK_BRANCH, "<name>") == unknown.text.replace(
        "agent/task-0", "<name>"
    )


async def test_a_diff_from_a_branch_changes_its_etag_when_the_branch_moves(
    http: httpx.AsyncClient, world: World, supply: Store, keys: Keys
) -> None:
    before = await _diff(http, keys.admin, TASK_BRANCH, "v1")
    commit_changes(
        supply, [UpsertRecord("Supplier", "S-1002", {"risk_score": 13})], branch=TASK_BRANCH
    )
    after = await _diff(http, keys.admin, TASK_BRANCH, "v1")
    assert before.headers["etag"] != after.headers["etag"]
    assert before.json()["from"] != after.json()["from"]
    refs = {entry["ref"] for entry in after.json()["records"]}
    assert refs == {"Supplier/S-1001", "Supplier/S-1002"}
