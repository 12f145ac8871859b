"""Answers that tell nothing about what exists where the caller may not look (docs/auth.md).

Each test asks the same route twice, once naming something that exists and the caller may not
read, once naming something that does not exist, and compares the two answers: same status, same
code, the same body but for the name. The principals: `outsider` (no grant on supply, admin of
another Domain), `main_viewer` (viewer on main only), `part_viewer` (viewer narrowed to Part),
and `viewer` of conftest.py (no clearances) for masked values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from lorebase_core.changes import UpsertRecord
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem, grant_key
from lorebase_platform.settings import Settings
from lorebase_store import Store
from lorebase_store.testing import commit_changes

pytestmark = pytest.mark.anyio

MASK = "***"
Request = tuple[str, str, dict[str, Any] | None]
"""Method, path below /api/v1/domains/{domain}, JSON body."""
Route = Callable[[str | None, str | None], Request]
"""A request of a route for a branch (None: the default one) and an `at` (None: the head)."""


def _body(branch: str | None, at: str | None, **members: Any) -> dict[str, Any]:
    return {**members, **({"branch": branch} if branch else {}), **({"at": at} if at else {})}


def _query(branch: str | None, at: str | None) -> str:
    members = [f"branch={branch}"] if branch else []
    members += [f"at={at}"] if at else []
    return "?" + "&".join(members) if members else ""


def _get(path: str) -> Route:
    return lambda branch, at: ("GET", path + _query(branch, at), None)


def _post(route: str, with_at: bool = True, **members: Any) -> Route:
    return lambda branch, at: ("POST", route, _body(branch, at if with_at else None, **members))


READS: dict[str, Route] = {
    "records": _get("/kinds/Supplier/records"),
    "record": _get("/kinds/Supplier/records/S-1001"),
    "schema": _get("/schema"),
    "operations": _get("/operations"),
    "operation": _get("/operations/update_supplier"),
    "history": _get("/kinds/Supplier/records/S-1001/history"),
    "lineage": _get("/kinds/Supplier/records/S-1001/lineage"),
    "explain": _get("/kinds/Supplier/records/S-1001/explain"),
    "links": _get("/kinds/Supplier/records/S-1001/links/supplies"),
    "health": _get("/health"),
    "kind-health": _get("/kinds/Supplier/health"),
    "query": _post("/query", kind="Supplier"),
    "traverse": _post("/traverse", start=["Supplier/S-1007"], path=["supplies"]),
    "neighborhood": _post("/neighborhood", refs=["Supplier/S-1001"], depth=1),
    "resolve": _post("/resolve", text="Kavsen Alloys"),
    "create-branch": lambda branch, at: (
        "POST",
        "/branches",
        {
            "name": "agent/mine",
            **({"from": branch} if branch else {}),
            **({"at": at} if at else {}),
        },
    ),
}
"""Routes that read a branch at a Revision."""

HEAD_READS: dict[str, Route] = {
    "search": _post("/search", with_at=False, q="bearing"),
    "context": _post("/context", with_at=False, refs=["Supplier/S-1001"]),
    "branch": lambda branch, _at: ("GET", f"/branches/{branch or 'main'}", None),
    "execute": _post(
        "/operations/update_supplier/execute",
        with_at=False,
        parameters={"key": "S-1001", "risk_score": 5},
        dry_run=True,
    ),
    "open-proposal": lambda branch, _at: ("POST", "/proposals", {"source": branch or "main"}),
    "merge-branch": lambda branch, _at: ("POST", f"/branches/{branch or 'main'}/merge", None),
}
"""Routes that read or write the head of a branch."""

DOMAIN_ROUTES: dict[str, Route] = {
    "diff": lambda _branch, at: ("GET", f"/diff?from={at or 'v1'}&to={at or 'v1'}", None),
    "branches": _get("/branches"),
    "tags": _get("/tags"),
    "tag": lambda _branch, at: ("GET", f"/tags/{at or 'v1'}", None),
    "proposals": _get("/proposals"),
    "vector": lambda _branch, _at: (
        "PUT",
        "/kinds/Supplier/records/S-1001/vector",
        {"model": "m", "vector": [0.1]},
    ),
}
"""Routes of the Domain as a whole."""

EVERY_ROUTE = {**READS, **HEAD_READS, **DOMAIN_ROUTES}


@dataclass(frozen=True)
class World:
    """Keys, and what exists that some of them may not read."""

    admin: str
    outsider: str
    main_viewer: str
    part_viewer: str
    viewer: str
    secret_revision: str
    """A Revision committed on branch `secret`, which main_viewer may not read."""
    unknown_prefix: str
    """A Revision prefix as long as the one of `secret_revision` that names no Revision."""


@pytest.fixture
def world(supply: Store, keys: Keys) -> World:
    outsider = grant_key(supply, "usr_outsider", domain="other", role="admin")
    main_viewer = grant_key(supply, "usr_main", domain="supply", role="viewer", branch="main")
    part_viewer = grant_key(supply, "usr_parts", domain="supply", role="viewer", kinds=["Part"])
    supply.create_branch("supply", "secret", created_by="usr_admin")
    secret = commit_changes(
        supply, [UpsertRecord("Supplier", "S-1001", {"risk_score": 11})], branch="secret"
    )
    supply.create_tag("supply", "secret-tag", secret.id, created_by="usr_admin")
    supply.create_tag("supply", "v1", supply.log("supply")[0].id, created_by="usr_admin")
    known = {revision.id for revision in supply.log("supply")} | {secret.id}
    prefix = next(
        candidate
        for candidate in (f"{n:010x}" for n in range(1, 1000))
        if not any(revision.startswith(candidate) for revision in known)
    )
    return World(
        keys.admin, outsider, main_viewer, part_viewer, keys.viewer, secret.id[:10], prefix
    )


@pytest.fixture
def http_headers() -> dict[str, str]:
    """`http` sends no credential: each request names its caller."""
    return {}


async def _ask(http: httpx.AsyncClient, key: str, domain: str, request: Request) -> httpx.Response:
    method, path, body = request
    return await http.request(
        method, f"/api/v1/domains/{domain}{path}", json=body, headers=Keys.header(key)
    )


def assert_alike(
    found: httpx.Response, unknown: httpx.Response, names: tuple[str, str], status: int, code: str
) -> None:
    """The two answers are the same problem, byte for byte once each names the same thing."""
    assert_problem(found, status, code)
    assert_problem(unknown, status, code)
    assert found.text.replace(names[0], "<name>") == unknown.text.replace(names[1], "<name>")


# -- a Domain the caller reads no branch of ---------------------------------------------------


@pytest.mark.parametrize(
    "route", [pytest.param(route, id=name) for name, route in EVERY_ROUTE.items()]
)
async def test_a_domain_without_a_grant_answers_like_an_unknown_domain(
    http: httpx.AsyncClient, world: World, route: Route
) -> None:
    variants = [
        (None, None),
        ("main", None),
        ("secret", None),  # an existing branch
        ("nosuch", None),
        (None, world.secret_revision),  # an existing Revision
        (None, world.unknown_prefix),
        (None, "v1"),  # an existing tag
    ]
    for branch, at in variants:
        found = await _ask(http, world.outsider, "supply", route(branch, at))
        unknown = await _ask(http, world.outsider, "nowhere", route(branch, at))
        assert_alike(found, unknown, ("supply", "nowhere"), 404, "domain-not-found")


async def test_an_unknown_domain_answers_alike_for_a_reader_of_every_domain(
    http: httpx.AsyncClient, world: World, supply: Store
) -> None:
    # both callers read supply and no other Domain: the same list to suggest from
    everywhere = grant_key(supply, "usr_everywhere", domain="*", role="viewer")
    from_store = await _ask(http, everywhere, "nowhere", READS["schema"](None, None))
    from_grants = await _ask(http, world.main_viewer, "elsewhere", READS["schema"](None, None))
    assert_alike(from_store, from_grants, ("nowhere", "elsewhere"), 404, "domain-not-found")
    assert from_store.json()["detail"] == "Domain 'nowhere' does not exist; Domains: supply"


async def test_an_unknown_domain_suggests_only_domains_the_caller_reads(
    http: httpx.AsyncClient, world: World
) -> None:
    reader = await _ask(http, world.main_viewer, "suply", READS["schema"](None, None))
    assert_problem(reader, 404, "domain-not-found")
    assert reader.json()["detail"] == (
        "Domain 'suply' does not exist; did you mean 'supply'? Domains: supply"
    )
    outsider = await _ask(http, world.outsider, "suply", READS["schema"](None, None))
    assert_problem(outsider, 404, "domain-not-found")
    assert outsider.json()["detail"] == "Domain 'suply' does not exist"
    assert "supply" not in outsider.text.replace("/domains/suply/", "")


async def test_the_domain_list_leaves_out_a_domain_without_a_grant(
    http: httpx.AsyncClient, world: World
) -> None:
    response = await http.get("/api/v1/domains", headers=Keys.header(world.outsider))
    assert response.json() == {"domains": []}


# -- a branch the caller's grants do not cover ------------------------------------------------


BRANCH_ROUTES = {**READS, **HEAD_READS}


@pytest.mark.parametrize(
    "route", [pytest.param(route, id=name) for name, route in BRANCH_ROUTES.items()]
)
async def test_a_branch_outside_the_grants_answers_alike_whether_it_exists_or_not(
    http: httpx.AsyncClient, world: World, route: Route
) -> None:
    for at in (None, world.secret_revision, world.unknown_prefix):
        found = await _ask(http, world.main_viewer, "supply", route("secret", at))
        unknown = await _ask(http, world.main_viewer, "supply", route("nosuch", at))
        assert_alike(found, unknown, ("secret", "nosuch"), 403, "forbidden")


async def test_the_branch_list_leaves_out_a_branch_outside_the_grants(
    http: httpx.AsyncClient, world: World
) -> None:
    response = await _ask(http, world.main_viewer, "supply", DOMAIN_ROUTES["branches"](None, None))
    assert [branch["name"] for branch in response.json()["branches"]] == ["main"]


# -- a Revision of a branch the caller may not read --------------------------------------------

AT_ROUTES = {name: READS[name] for name in READS if name != "create-branch"}


@pytest.mark.parametrize(
    "route", [pytest.param(route, id=name) for name, route in AT_ROUTES.items()]
)
async def test_a_revision_of_an_unreadable_branch_answers_like_an_unknown_one(
    http: httpx.AsyncClient, world: World, route: Route
) -> None:
    prefixes = (world.secret_revision, world.unknown_prefix)
    for names in (prefixes, ("secret-tag", "nosuch-tag")):
        for branch in (None, "main"):
            found = await _ask(http, world.main_viewer, "supply", route(branch, names[0]))
            unknown = await _ask(http, world.main_viewer, "supply", route(branch, names[1]))
            assert_alike(found, unknown, names, 404, "revision-not-found")


async def test_a_reader_of_both_branches_learns_the_revision_is_elsewhere(
    http: httpx.AsyncClient, world: World
) -> None:
    response = await _ask(
        http, world.admin, "supply", READS["record"]("main", world.secret_revision)
    )
    assert_problem(response, 404, "revision-not-on-branch")


async def test_a_revision_of_the_branch_history_reads_without_a_grant_on_its_base(
    http: httpx.AsyncClient, supply: Store
) -> None:
    first = supply.log("supply")[-1].id  # a Revision of main, before agent/only forked
    supply.create_branch("supply", "agent/only", created_by="usr_admin")
    key = grant_key(supply, "usr_agent_only", domain="supply", role="viewer", branch="agent/*")
    request = READS["record"]("agent/only", first[:10])
    response = await _ask(http, key, "supply", request)
    assert response.status_code == 200, response.text
    assert response.json()["revision"] == first
    on_main = await _ask(http, key, "supply", READS["record"]("main", first[:10]))
    assert_problem(on_main, 403, "forbidden")


async def test_a_branch_cut_at_a_revision_of_an_unreadable_branch_is_refused_alike(
    http: httpx.AsyncClient, world: World, supply: Store
) -> None:
    creator = grant_key(supply, "usr_creator", domain="supply", role="editor", branch="main")
    supply.add_grant("usr_creator", domain="supply", role="editor", branch="agent/*")
    route = READS["create-branch"]
    found = await _ask(http, creator, "supply", route("main", world.secret_revision))
    unknown = await _ask(http, creator, "supply", route("main", world.unknown_prefix))
    assert_alike(
        found, unknown, (world.secret_revision, world.unknown_prefix), 404, "revision-not-found"
    )


@pytest.mark.parametrize("end", [pytest.param("from", id="from"), pytest.param("to", id="to")])
async def test_a_diff_end_on_an_unreadable_branch_answers_like_an_unknown_one(
    http: httpx.AsyncClient, world: World, end: str
) -> None:
    async def diff(revision: str) -> httpx.Response:
        other = "from" if end == "to" else "to"
        path = f"/diff?{end}={revision}&{other}=v1"  # v1: a tag of main's head
        return await _ask(http, world.main_viewer, "supply", ("GET", path, None))

    names = (world.secret_revision, world.unknown_prefix)
    assert_alike(await diff(names[0]), await diff(names[1]), names, 404, "revision-not-found")


async def test_context_since_a_revision_of_an_unreadable_branch_is_unknown(
    http: httpx.AsyncClient, world: World
) -> None:
    async def context(since: str) -> httpx.Response:
        body = {"refs": ["Supplier/S-1001"], "since": since}
        return await _ask(http, world.main_viewer, "supply", ("POST", "/context", body))

    names = (world.secret_revision, world.unknown_prefix)
    assert_alike(await context(names[0]), await context(names[1]), names, 404, "revision-not-found")


async def test_a_tag_of_an_unreadable_branch_answers_like_an_unknown_tag(
    http: httpx.AsyncClient, world: World
) -> None:
    tag = DOMAIN_ROUTES["tag"]
    found = await _ask(http, world.main_viewer, "supply", tag(None, "secret-tag"))
    unknown = await _ask(http, world.main_viewer, "supply", tag(None, "nosuch-tag"))
    assert_alike(found, unknown, ("secret-tag", "nosuch-tag"), 404, "tag-not-found")
    listed = await _ask(http, world.main_viewer, "supply", DOMAIN_ROUTES["tags"](None, None))
    assert [entry["name"] for entry in listed.json()["tags"]] == ["v1"]
    everything = await _ask(http, world.admin, "supply", DOMAIN_ROUTES["tags"](None, None))
    assert sorted(entry["name"] for entry in everything.json()["tags"]) == ["secret-tag", "v1"]


# -- a Trait none of whose Kinds the caller may read ------------------------------------------

TRAIT_ROUTES: dict[str, Callable[[str], Request]] = {
    "query": lambda trait: ("POST", "/query", {"trait": trait}),
    "search": lambda trait: ("POST", "/search", {"q": "seal", "traits": [trait]}),
    "context-query": lambda trait: ("POST", "/context", {"query": {"trait": trait}}),
    "context-traits": lambda trait: (
        "POST",
        "/context",
        {"refs": ["Part/P-10028"], "traits": [trait]},
    ),
}


@pytest.mark.parametrize(
    "route", [pytest.param(route, id=name) for name, route in TRAIT_ROUTES.items()]
)
async def test_an_invisible_trait_answers_like_an_unknown_one(
    http: httpx.AsyncClient, world: World, route: Callable[[str], Request]
) -> None:
    found = await _ask(http, world.part_viewer, "supply", route("Located"))
    unknown = await _ask(http, world.part_viewer, "supply", route("Nowhere"))
    assert_alike(found, unknown, ("Located", "Nowhere"), 404, "trait-not-found")


async def test_a_trait_with_a_readable_kind_answers(
    http: httpx.AsyncClient, world: World, supply: Store
) -> None:
    plants = grant_key(supply, "usr_plants", domain="supply", role="viewer", kinds=["Plant"])
    response = await _ask(http, plants, "supply", TRAIT_ROUTES["query"]("Located"))
    assert response.status_code == 200, response.text
    assert {record["kind"] for record in response.json()["records"]} == {"Plant"}


async def test_without_invisible_kinds_an_invisible_trait_is_kind_forbidden(
    supply: Store, world: World
) -> None:
    settings = Settings(
        keeper={
            "auth": {
                "mode": "api_key",
                "authz": {"invisible_kinds": False, "grants_cache_ttl_s": 0},
            }
        }
    )
    transport = httpx.ASGITransport(app=create_app(settings, store=supply))
    async with httpx.AsyncClient(transport=transport, base_url="http://keeper.test") as http:
        hidden = await _ask(http, world.part_viewer, "supply", TRAIT_ROUTES["query"]("Located"))
        unknown = await _ask(http, world.part_viewer, "supply", TRAIT_ROUTES["query"]("Nowhere"))
    assert_problem(hidden, 403, "kind-forbidden")
    assert_problem(unknown, 404, "trait-not-found")


# -- masked Attributes: *** whether set or not ------------------------------------------------

SET, UNSET = "S-1001", "S-1002"
"""Two Suppliers: S-1001 with a contact_email, S-1002 with none (the `unset` fixture)."""


@pytest.fixture
def unset(supply: Store) -> Store:
    commit_changes(supply, [UpsertRecord("Supplier", UNSET, {"contact_email": None})])
    return supply


def _masked(values: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value == MASK}


async def _viewer(http: httpx.AsyncClient, world: World, request: Request) -> Any:
    response = await _ask(http, world.viewer, "supply", request)
    assert response.status_code == 200, response.text
    return response.json()


async def test_a_record_shows_a_masked_attribute_whether_set_or_not(
    http: httpx.AsyncClient, world: World, unset: Store
) -> None:
    found = {
        key: (await _viewer(http, world, ("GET", f"/kinds/Supplier/records/{key}", None)))["values"]
        for key in (SET, UNSET)
    }
    assert (
        _masked(found[SET]) == _masked(found[UNSET]) == {"vat_number": MASK, "contact_email": MASK}
    )
    assert list(found[UNSET]).index("contact_email") == list(found[SET]).index("contact_email")
    listed = await _viewer(http, world, ("GET", "/kinds/Supplier/records?limit=2", None))
    assert [_masked(record["values"]) for record in listed["records"]] == [
        {"vat_number": MASK, "contact_email": MASK}
    ] * 2


@pytest.mark.parametrize(
    "select",
    [pytest.param(None, id="all"), pytest.param(["legal_name", "contact_email"], id="select")],
)
async def test_a_query_shows_a_masked_attribute_whether_set_or_not(
    http: httpx.AsyncClient, world: World, unset: Store, select: list[str] | None
) -> None:
    where = {"attr": "supplier_code", "op": "in", "value": [SET, UNSET]}
    body = {"kind": "Supplier", "where": where, **({"select": select} if select else {})}
    answer = await _viewer(http, world, ("POST", "/query", body))
    values = {record["key"]: record["values"] for record in answer["records"]}
    assert values[UNSET]["contact_email"] == values[SET]["contact_email"] == MASK
    assert _masked(values[SET]) == _masked(values[UNSET])


async def test_search_and_context_show_a_masked_attribute_whether_set_or_not(
    http: httpx.AsyncClient, world: World, unset: Store
) -> None:
    for q, key in (("Kavsen", SET), ("Hollmann", UNSET)):
        body = {"q": q, "kinds": ["Supplier"]}
        [hit] = (await _viewer(http, world, ("POST", "/search", body)))["hits"]
        assert hit["key"] == key
        assert _masked(hit["values"]) == {"vat_number": MASK, "contact_email": MASK}
    refs = [f"Supplier/{SET}", f"Supplier/{UNSET}"]
    body = {"refs": refs, "depth": 0, "include_lineage": True}
    pack = await _viewer(http, world, ("POST", "/context", body))
    assert [_masked(seed["values"]) for seed in pack["seeds"]] == [
        {"vat_number": MASK, "contact_email": MASK}
    ] * 2
    named = {name for entry in pack["lineage"] for name in entry["attributes"]}
    assert named
    assert not named & {"vat_number", "contact_email"}


async def test_graph_reads_show_a_masked_attribute_whether_set_or_not(
    http: httpx.AsyncClient, world: World, unset: Store
) -> None:
    body = {"refs": [f"Supplier/{SET}", f"Supplier/{UNSET}"], "depth": 0}
    answer = await _viewer(http, world, ("POST", "/neighborhood", body))
    records = [*answer.get("seeds", []), *answer.get("neighbors", [])]
    found = {record["ref"]: record["values"] for record in records}
    assert _masked(found[f"Supplier/{SET}"]) == _masked(found[f"Supplier/{UNSET}"])
    assert found[f"Supplier/{UNSET}"]["contact_email"] == MASK


async def test_explain_and_lineage_show_a_masked_attribute_alike_whether_set_or_not(
    http: httpx.AsyncClient, world: World, unset: Store
) -> None:
    explained = {}
    for key in (SET, UNSET):
        path = f"/kinds/Supplier/records/{key}"
        document = await _viewer(http, world, ("GET", f"{path}/explain", None))
        explained[key] = {entry["name"]: entry for entry in document["attributes"]}
        lineage = await _viewer(http, world, ("GET", f"{path}/lineage", None))
        assert not set(lineage["attributes"]) & {"vat_number", "contact_email"}
        record = await _viewer(http, world, ("GET", f"{path}?lineage=true", None))
        assert not set(record["lineage"]) & {"vat_number", "contact_email"}
        text = (
            await _ask(
                http, world.viewer, "supply", ("GET", f"{path}/explain?format=markdown", None)
            )
        ).text
        assert "| contact_email | *** |  |  |  |  |  |" in text
    assert (
        explained[SET]["contact_email"]
        == explained[UNSET]["contact_email"]
        == {
            "name": "contact_email",
            "value": MASK,
            "revision": None,
            "origin": None,
            "actor": None,
            "at": None,
            "message": None,
        }
    )
    assert explained[SET]["legal_name"]["revision"] is not None


async def test_history_shows_a_masked_attribute_whether_set_or_not(
    http: httpx.AsyncClient, world: World, unset: Store
) -> None:
    path = f"/kinds/Supplier/records/{UNSET}/history?values=true"
    [latest, *_] = (await _viewer(http, world, ("GET", path, None)))["changes"]
    assert latest["before"]["contact_email"] == latest["after"]["contact_email"] == MASK


async def test_a_creation_names_masked_attributes_whether_set_or_not(
    http: httpx.AsyncClient, world: World, supply: Store
) -> None:
    before = supply.branch("supply", "main").head_revision
    bare = {"legal_name": "Bare Metals", "city": "Graz", "country": "AT"}
    after = commit_changes(supply, [UpsertRecord("Supplier", "S-1099", bare)]).id
    masked = {"vat_number", "contact_email"}
    for key in (SET, "S-1099"):
        path = f"/kinds/Supplier/records/{key}/history"
        changes = (await _viewer(http, world, ("GET", path, None)))["changes"]
        [created] = [change for change in changes if change["change"] == "created"]
        assert masked <= set(created["attributes"]), key
    diff = await _viewer(http, world, ("GET", f"/diff?from={before}&to={after}", None))
    [entry] = diff["records"]
    assert entry["change"] == "created"
    assert masked <= set(entry["attributes"])
    assert _masked(entry["after"]) == {"vat_number": MASK, "contact_email": MASK}
    body = {"refs": ["Supplier/S-1099"], "depth": 0, "include_recent_changes": True}
    pack = await _viewer(http, world, ("POST", "/context", body))
    [recent] = pack["recent_changes"]
    assert masked <= set(recent["attributes"])
