"""GET /schema, GET /operations and GET /operations/{op}: the Operations a caller may discover.

The supply example gets the Operations of test_proposal_scope (`update_part`,
`set_supplier_contact`, `set_supply_lead_time`) beside its own. Principals: `admin`, `viewer`
(reads everything, executes nothing), `part_editor` (editor narrowed to Part), `split` (viewer of
every Kind, editor narrowed to Part).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from packages.keeper.tests.conftest import api_key_settings, supply_with_operations
from packages.keeper.tests.writes.test_proposal_scope import OPERATIONS, SUPPLY

from lorebase_core.schema import load_schema
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store

pytestmark = pytest.mark.anyio

API = "/api/v1/domains/supply"
SUPPLY_OPERATIONS = sorted(load_schema((SUPPLY / "schema.yaml").read_text()).operations)
ADDED = ["set_supplier_contact", "set_supply_lead_time", "update_part"]
DRY_RUNS: dict[str, dict[str, Any]] = {
    "update_supplier": {"key": "S-1001", "risk_score": 12},
    "flag_supplier_risk": {"supplier": "S-1001", "severity": "low", "reason": "late"},
    "update_contract": {"key": "C-3013", "status": "active"},
    "update_part": {"key": "P-10028", "unit_cost": "30.10"},
    "set_supplier_contact": {"key": "S-1001", "contact_email": "a@example.com"},
    "set_supply_lead_time": {"part": "P-10028", "supplier": "S-1004", "lead_time_days": 9},
}


@pytest.fixture
def supply_plus(store: Store, tmp_path: Path) -> Store:
    return supply_with_operations(store, tmp_path, OPERATIONS)


def _headers(store: Store) -> dict[str, dict[str, str]]:
    def key(name: str) -> dict[str, str]:
        store.ensure_principal(name, principal_type="user")
        return Keys.header(store.create_key(name).secret)

    found = {
        "admin": key("usr_admin"),
        "viewer": key("usr_viewer"),
        "part_editor": key("usr_part_editor"),
        "split": key("usr_split"),
    }
    store.add_grant("usr_admin", domain="supply", role="admin")
    store.add_grant("usr_viewer", domain="supply", role="viewer")
    store.add_grant("usr_part_editor", domain="supply", role="editor", kinds=["Part"])
    store.add_grant("usr_split", domain="supply", role="viewer")
    store.add_grant("usr_split", domain="supply", role="editor", kinds=["Part"])
    return found


def _without_instance(problem: dict[str, object]) -> dict[str, object]:
    """A problem document but for `instance` (the path asked, which differs by route)."""
    return {member: value for member, value in problem.items() if member != "instance"}


class World:
    def __init__(self, api: httpx.AsyncClient, headers: dict[str, dict[str, str]]) -> None:
        self.api = api
        self.headers = headers

    async def get(self, who: str, path: str, **params: str) -> httpx.Response:
        return await self.api.get(f"{API}{path}", params=params, headers=self.headers[who])

    async def listed(self, who: str, **params: str) -> dict[str, dict[str, Any]]:
        answer = await self.get(who, "/operations", **params)
        assert answer.status_code == 200, answer.text
        return {entry["name"]: entry for entry in answer.json()["operations"]}

    async def dry_run(self, who: str, operation: str, branch: str = "work") -> httpx.Response:
        return await self.api.post(
            f"{API}/operations/{operation}/execute",
            json={"parameters": DRY_RUNS[operation], "branch": branch, "dry_run": True},
            headers=self.headers[who],
        )


async def _world(store: Store, settings: Settings) -> AsyncIterator[World]:
    headers = _headers(store)
    transport = httpx.ASGITransport(app=create_app(settings, store=store))
    async with httpx.AsyncClient(transport=transport, base_url="http://keeper.test") as client:
        made = await client.post(
            f"{API}/branches", json={"name": "work", "from": "main"}, headers=headers["admin"]
        )
        assert made.status_code == 201, made.text
        yield World(client, headers)


@pytest.fixture
async def world(supply_plus: Store) -> AsyncIterator[World]:
    async for found in _world(supply_plus, api_key_settings()):
        yield found


@pytest.fixture
async def forbidding(supply_plus: Store) -> AsyncIterator[World]:
    """Keeper with keeper.auth.authz.invisible_kinds false."""
    async for found in _world(supply_plus, api_key_settings(invisible_kinds=False)):
        yield found


# -- the supply Operations, on the example as it ships -------------------------------------------


async def test_schema_and_operations_list_the_supply_operations_with_their_parameters(
    http: httpx.AsyncClient,
) -> None:
    schema = await http.get(f"{API}/schema")
    listed = await http.get(f"{API}/operations")
    assert schema.status_code == listed.status_code == 200, listed.text
    operations = listed.json()["operations"]
    assert schema.json()["operations"] == operations
    assert sorted(entry["name"] for entry in operations) == SUPPLY_OPERATIONS
    update = next(entry for entry in operations if entry["name"] == "update_supplier")
    parameters = {param["name"]: param for param in update["parameters"]}
    assert list(parameters) == ["key", "risk_score", "tier", "status", "city", "country"]
    assert parameters["key"] == {
        "name": "key",
        "type": "string",
        "required": True,
        "description": "The supplier code (S-1001).",
        "pattern": "^S-[0-9]{4}$",
        "refers_to": ["Supplier"],
        "summary": "Required. A string matching ^S-[0-9]{4}$: the key of a Supplier.",
    }
    assert (parameters["risk_score"]["min"], parameters["risk_score"]["max"]) == (0, 100)
    assert parameters["risk_score"]["sets"] == ["Supplier.risk_score"]
    assert parameters["status"]["values"] == ["active", "suspended", "blocked"]
    assert update["edits"] == [
        {
            "op": "update_record",
            "kind": "Supplier",
            "attributes": ["risk_score", "tier", "status", "city", "country"],
        }
    ]
    assert update["permissions"] == ["operation.execute"]
    assert update["execute"] == {
        "method": "POST",
        "href": f"{API}/operations/update_supplier/execute",
        "allowed": True,
        "refusal": None,
    }


async def test_flag_supplier_risk_says_when_it_needs_review_and_what_it_emits(
    http: httpx.AsyncClient,
) -> None:
    made = await http.post(f"{API}/branches", json={"name": "work", "from": "main"})
    assert made.status_code == 201, made.text
    on_main = (await http.get(f"{API}/operations/flag_supplier_risk")).json()
    on_work = (await http.get(f"{API}/operations/flag_supplier_risk?branch=work")).json()
    assert (on_main["branch"], on_work["branch"]) == ("main", "work")
    assert on_main["side_effects"] == [
        {"name": "risk_flag_raised", "event": "operation.risk_flag_raised"}
    ]
    assert on_main["kinds"] == ["RiskFlag", "Supplier"]
    supplier = next(p for p in on_main["parameters"] if p["name"] == "supplier")
    assert supplier["refers_to"] == ["Supplier"]  # the `to` of the flags Link
    review = on_work["review"]
    assert {key: review[key] for key in review if key != "description"} == {
        "needed": "conditional",
        "reasons": ["review-policy"],
        "protected_branch": False,
        "policy": "severity == 'critical'",
        "policy_parameters": ["severity"],
        "when": "severity is 'critical'",
    }
    assert "needs review when severity is 'critical'" in review["description"]
    assert on_main["review"]["needed"] == "always"
    assert on_main["review"]["reasons"] == ["protected-branch", "review-policy"]
    assert (
        "branch 'main' needs review: the branch is protected" in (on_main["review"]["description"])
    )
    update = (await http.get(f"{API}/operations/update_supplier?branch=work")).json()
    assert update["review"]["needed"] == "never"
    assert update["review"]["description"] == (
        "No review: an execution on branch 'work' commits directly."
    )


@pytest.mark.parametrize("operation", SUPPLY_OPERATIONS)
async def test_each_operation_answers_alone_as_in_the_list(
    http: httpx.AsyncClient, operation: str
) -> None:
    listed = (await http.get(f"{API}/operations")).json()
    one = await http.get(f"{API}/operations/{operation}")
    assert one.status_code == 200, one.text
    body = one.json()
    stamp = {member: body.pop(member) for member in ("domain", "branch", "revision")}
    assert stamp == {member: listed[member] for member in ("domain", "branch", "revision")}
    assert one.headers["Lorebase-Revision"] == stamp["revision"]
    assert body == next(entry for entry in listed["operations"] if entry["name"] == operation)


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/operations", id="list"),
        pytest.param("/operations/update_supplier", id="one"),
        pytest.param("/schema", id="schema"),
    ],
)
async def test_answers_are_cached_with_etags(http: httpx.AsyncClient, path: str) -> None:
    first = await http.get(f"{API}{path}")
    assert first.status_code == 200, first.text
    assert first.json()["revision"] == first.headers["Lorebase-Revision"]
    again = await http.get(f"{API}{path}", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    assert again.headers["ETag"] == first.headers["ETag"]
    assert (await http.get(f"{API}{path}")).content == first.content


async def test_an_earlier_revision_is_read_with_at(http: httpx.AsyncClient, supply: Store) -> None:
    imported = supply.log("supply")[-1].id
    answer = await http.get(f"{API}/operations/update_supplier", params={"at": imported})
    assert answer.status_code == 200, answer.text
    assert answer.json()["revision"] == imported


async def test_an_unknown_operation_answers_as_execute_does(http: httpx.AsyncClient) -> None:
    read = assert_problem(await http.get(f"{API}/operations/no_such"), 404, "operation-not-found")
    execute = await http.post(f"{API}/operations/no_such/execute", json={"parameters": {}})
    executed = assert_problem(execute, 404, "operation-not-found")
    assert _without_instance(read) == _without_instance(executed)


async def test_an_unknown_branch_or_domain_is_not_found(http: httpx.AsyncClient) -> None:
    assert_problem(
        await http.get(f"{API}/operations", params={"branch": "nope"}), 404, "branch-not-found"
    )
    assert_problem(
        await http.get("/api/v1/domains/nope/operations/update_supplier"), 404, "domain-not-found"
    )


# -- who sees what ----------------------------------------------------------------------------------


async def test_a_narrowed_grant_lists_only_the_operations_execute_knows(world: World) -> None:
    everything = await world.listed("admin", branch="work")
    assert sorted(everything) == sorted([*SUPPLY_OPERATIONS, *ADDED])
    listed = await world.listed("part_editor", branch="work")
    assert list(listed) == ["update_part"]
    schema = await world.get("part_editor", "/schema", branch="work")
    assert [entry["name"] for entry in schema.json()["operations"]] == ["update_part"]
    for operation in everything:  # listed and execute agree, Operation by Operation
        answer = await world.dry_run("part_editor", operation)
        if operation in listed:
            assert answer.status_code == 200, answer.text
            one = await world.get("part_editor", f"/operations/{operation}", branch="work")
            assert one.status_code == 200, one.text
        else:
            executed = assert_problem(answer, 404, "operation-not-found")
            one = await world.get("part_editor", f"/operations/{operation}", branch="work")
            read = assert_problem(one, 404, "operation-not-found")
            assert _without_instance(read) == _without_instance(executed)


async def test_with_invisible_kinds_off_an_unlisted_operation_is_kind_forbidden(
    forbidding: World,
) -> None:
    assert list(await forbidding.listed("part_editor", branch="work")) == ["update_part"]
    one = await forbidding.get("part_editor", "/operations/update_supplier", branch="work")
    read = assert_problem(one, 403, "kind-forbidden")
    executed = assert_problem(
        await forbidding.dry_run("part_editor", "update_supplier"), 403, "kind-forbidden"
    )
    assert _without_instance(read) == _without_instance(executed)


async def test_a_principal_without_execute_reads_every_operation_marked_not_allowed(
    world: World,
) -> None:
    listed = await world.listed("viewer", branch="work")
    assert sorted(listed) == sorted([*SUPPLY_OPERATIONS, *ADDED])
    for operation, entry in listed.items():
        assert entry["execute"]["allowed"] is False
        assert entry["execute"]["refusal"] == "forbidden"
        assert_problem(await world.dry_run("viewer", operation), 403, "forbidden")


async def test_a_write_grant_narrower_than_the_read_grant_marks_kind_forbidden(
    world: World,
) -> None:
    listed = await world.listed("split", branch="work")
    assert sorted(listed) == sorted([*SUPPLY_OPERATIONS, *ADDED])
    for operation, entry in listed.items():
        answer = await world.dry_run("split", operation)
        if operation == "update_part":
            assert entry["execute"] == {**entry["execute"], "allowed": True, "refusal": None}
            assert answer.status_code == 200, answer.text
        else:
            assert entry["execute"]["refusal"] == "kind-forbidden", operation
            assert_problem(answer, 403, "kind-forbidden")


async def test_etags_differ_between_callers_who_may_execute_and_who_may_not(
    world: World,
) -> None:
    # the same read scope (every Kind, no clearance): only the write grants differ
    split = await world.get("split", "/operations/update_part")
    viewer = await world.get("viewer", "/operations/update_part")
    assert split.json()["execute"]["allowed"] is True
    assert viewer.json()["execute"]["allowed"] is False
    assert split.headers["ETag"] != viewer.headers["ETag"]
    cross = await world.api.get(
        f"{API}/operations/update_part",
        headers={**world.headers["viewer"], "If-None-Match": split.headers["ETag"]},
    )
    assert cross.status_code == 200
    assert cross.json()["execute"]["allowed"] is False
