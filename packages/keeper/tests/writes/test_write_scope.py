"""Writes under grants narrowed to Kinds (docs/auth.md, docs/writes.md).

The supply example gets `update_part`, `set_supplier_contact` and `set_supply_lead_time` (from
test_proposal_scope) and `set_supplier_vat` (a confidential, unique Attribute). Principals: `admin`, `editor` (editor everywhere), `part_editor` (editor
narrowed to Part), `part_agent` (a service principal, editor narrowed to Part on main and
agent/*), `part_reviewer` (reviewer narrowed to Part), `split` (viewer of every Kind, editor
narrowed to Part) and `supplier_editor` (editor narrowed to Supplier, without clearances).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from packages.keeper.tests.conftest import api_key_settings, supply_with_operations
from packages.keeper.tests.writes.test_proposal_scope import OPERATIONS

from lorebase_core.errors import OperationNotFound
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store

pytestmark = pytest.mark.anyio

API = "/api/v1/domains/supply"
VAT = """
  set_supplier_vat:
    description: Set the VAT number of a supplier.
    parameters:
      key: {type: string, required: true, description: The supplier.}
      vat_number: {type: string, description: The VAT number (the parameter is not tagged).}
    edits:
      - update_record: {kind: Supplier, key: $key, values: {vat_number: $vat_number}}
"""


@dataclass
class World:
    api: httpx.AsyncClient
    store: Store
    headers: dict[str, dict[str, str]]

    def __getitem__(self, name: str) -> dict[str, str]:
        return self.headers[name]

    async def head(self, branch: str) -> str:
        answer = await self.api.get(
            f"{API}/branches/{branch.replace('/', '%2F')}", headers=self["admin"]
        )
        assert answer.status_code == 200, answer.text
        return str(answer.json()["revision"])

    async def branch(self, name: str, source: str = "main") -> None:
        made = await self.api.post(
            f"{API}/branches", json={"name": name, "from": source}, headers=self["editor"]
        )
        assert made.status_code == 201, made.text

    async def run(
        self, who: str, operation: str, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> httpx.Response:
        return await self.api.post(
            f"{API}/operations/{operation}/execute",
            json=body,
            headers={**self[who], **(headers or {})},
        )

    async def value(self, kind: str, key: str, attribute: str, branch: str = "main") -> Any:
        answer = await self.api.get(
            f"{API}/kinds/{kind}/records/{key}", params={"branch": branch}, headers=self["admin"]
        )
        assert answer.status_code == 200, answer.text
        return answer.json()["values"][attribute]

    def state(self) -> tuple[list[tuple[str, str | None]], list[str], int]:
        """Branches with their heads, Proposal ids and the number of audit rows."""
        branches = sorted((b.name, b.head_revision) for b in self.store.branches("supply"))
        proposals = [p.id for p in self.store.writes.proposals("supply", limit=500)]
        return branches, proposals, len(self.store.writes.audit("supply", limit=10_000))


@pytest.fixture
def supply_plus(store: Store, tmp_path: Path) -> Store:
    return supply_with_operations(store, tmp_path, OPERATIONS + VAT)


def _headers(store: Store) -> dict[str, dict[str, str]]:
    def key(name: str, kind: str = "user") -> dict[str, str]:
        store.ensure_principal(name, principal_type=kind)  # type: ignore[arg-type]
        return Keys.header(store.create_key(name).secret)

    found = {
        "admin": key("usr_admin"),
        "editor": key("usr_editor"),
        "part_editor": key("usr_part_editor"),
        "part_agent": key("svc_part_agent", "service"),
        "part_reviewer": key("usr_part_reviewer"),
        "split": key("usr_split"),
        "supplier_editor": key("usr_supplier_editor"),
        "reviewer": key("usr_reviewer"),
    }
    store.add_grant("usr_admin", domain="supply", role="admin")
    store.add_grant("usr_editor", domain="supply", role="editor")
    store.add_grant("usr_part_editor", domain="supply", role="editor", kinds=["Part"])
    for branch in ("main", "agent/*"):
        store.add_grant(
            "svc_part_agent", domain="supply", role="editor", branch=branch, kinds=["Part"]
        )
    store.add_grant("usr_part_reviewer", domain="supply", role="reviewer", kinds=["Part"])
    store.add_grant("usr_split", domain="supply", role="viewer")
    store.add_grant("usr_split", domain="supply", role="editor", kinds=["Part"])
    store.add_grant("usr_supplier_editor", domain="supply", role="editor", kinds=["Supplier"])
    store.add_grant("usr_reviewer", domain="supply", role="reviewer")
    return found


async def _world(store: Store, app_settings: Settings) -> AsyncIterator[World]:
    headers = _headers(store)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(app_settings, store=store)),
        base_url="http://keeper.test",
    ) as client:
        world = World(client, store, headers)
        await world.branch("work")
        yield world


@pytest.fixture
async def world(supply_plus: Store) -> AsyncIterator[World]:
    async for found in _world(supply_plus, api_key_settings()):
        yield found


@pytest.fixture
async def forbidding(supply_plus: Store) -> AsyncIterator[World]:
    """Keeper with keeper.auth.authz.invisible_kinds false."""
    async for found in _world(supply_plus, api_key_settings(invisible_kinds=False)):
        yield found


@pytest.fixture
async def merging(supply_plus: Store) -> AsyncIterator[World]:
    """Keeper where editors' task Proposals merge by themselves when nothing blocks them."""
    found = api_key_settings(
        agent_writes={"allowed_roles_for_auto_merge": ["editor"]},
        operations={"required_approvals": 0},
    )
    async for world in _world(supply_plus, found):
        yield world


# -- Operations ----------------------------------------------------------------------------------

SUPPLIER = {"key": "S-1001", "risk_score": 12}
LEAD_TIME = {"part": "P-10028", "supplier": "S-1004", "lead_time_days": 9}
INVISIBLE = [
    pytest.param("part_editor", "update_supplier", {"parameters": SUPPLIER}, id="main"),
    pytest.param(
        "part_editor", "update_supplier", {"parameters": SUPPLIER, "branch": "work"}, id="direct"
    ),
    pytest.param(
        "part_editor",
        "update_supplier",
        {"parameters": SUPPLIER, "branch": "work", "dry_run": True},
        id="dry-run",
    ),
    pytest.param(
        "part_editor",
        "update_supplier",
        {"parameters": {"key": "bad", "colour": "red"}, "branch": "work"},
        id="bad-parameters",
    ),
    pytest.param(
        "part_editor",
        "update_supplier",
        {"parameters": SUPPLIER, "branch": "work", "idempotency_key": "k-1"},
        id="idempotency-key",
    ),
    pytest.param(
        "part_agent",
        "update_supplier",
        {"parameters": SUPPLIER, "task": "audit", "intent": "Lower it", "auto_merge": True},
        id="task",
    ),
    pytest.param(
        "part_editor",
        "set_supply_lead_time",
        {"parameters": LEAD_TIME, "branch": "work"},
        id="relation-end",
    ),
    pytest.param(
        "part_agent",
        "set_supply_lead_time",
        {"parameters": LEAD_TIME, "task": "lead", "auto_propose": True},
        id="relation-task",
    ),
]


@pytest.mark.parametrize(("who", "operation", "body"), INVISIBLE)
async def test_an_operation_on_an_invisible_kind_answers_like_an_unknown_one(
    world: World, who: str, operation: str, body: dict[str, Any]
) -> None:
    before = world.state()
    unknown = await world.run(who, "no_such_operation", body)
    problem = assert_problem(unknown, 404, "operation-not-found")
    answer = await world.run(who, operation, body, {"Idempotency-Key": "k-1"})
    found = assert_problem(answer, 404, "operation-not-found")
    # the same answer but for the name, its suggestions drawn from the same visible Operations
    visible = str(problem["detail"]).partition("; Operations: ")[2].split(", ")
    expected = OperationNotFound.named(operation, "supply", visible).detail
    named = {
        member: str(value).replace("no_such_operation", operation)
        for member, value in problem.items()
    }
    assert found == {**problem, **named, "status": 404, "detail": expected}
    assert operation not in visible
    assert world.state() == before  # no commit, branch, Proposal, invocation or audit row
    for principal in ("usr_part_editor", "svc_part_agent"):
        assert world.store.writes.invocation("supply", principal, "k-1") is None
    assert await world.value("Supplier", "S-1001", "risk_score", "work") != "12"


async def test_with_invisible_kinds_off_it_answers_kind_forbidden(forbidding: World) -> None:
    before = forbidding.state()
    answer = await forbidding.run(
        "part_editor", "update_supplier", {"parameters": SUPPLIER, "branch": "work"}
    )
    problem = assert_problem(answer, 403, "kind-forbidden")
    assert problem["operation"] == "update_supplier"
    assert forbidding.state() == before


async def test_operations_on_visible_kinds_work_as_before(world: World) -> None:
    body = {"parameters": {"key": "P-10028", "unit_cost": "30.10"}, "branch": "work"}
    dry = await world.run("part_editor", "update_part", {**body, "dry_run": True})
    assert dry.status_code == 200, dry.text
    assert dry.json()["edit_count"] == 1
    done = await world.run("part_editor", "update_part", body)
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "committed"
    assert await world.value("Part", "P-10028", "unit_cost", "work") == "30.10"
    task = {"parameters": {"key": "P-10028", "unit_cost": "30.20"}, "task": "cost"}
    proposed = await world.run("part_agent", "update_part", task)
    assert proposed.status_code == 202, proposed.text
    assert proposed.json()["status"] == "proposed"


async def test_a_narrowed_write_grant_beside_a_wider_read_grant_writes_its_kinds_only(
    world: World,
) -> None:
    before = world.state()
    body = {"parameters": SUPPLIER, "branch": "work"}
    refused = await world.run("split", "update_supplier", body)
    problem = assert_problem(refused, 403, "kind-forbidden")
    assert "Supplier" in str(problem["detail"])
    dry = await world.run("split", "update_supplier", {**body, "dry_run": True})
    assert_problem(dry, 403, "kind-forbidden")
    assert world.state() == before
    part = {"parameters": {"key": "P-10028", "unit_cost": "30.30"}, "branch": "work"}
    done = await world.run("split", "update_part", part)
    assert done.status_code == 200, done.text


async def test_sensitive_values_may_be_written_and_are_masked_in_the_answer(world: World) -> None:
    email = "anna.kowalska@valtera.example"
    body = {"parameters": {"key": "S-1004", "contact_email": email}, "branch": "work"}
    dry = await world.run("supplier_editor", "set_supplier_contact", {**body, "dry_run": True})
    assert dry.status_code == 200, dry.text
    assert email not in dry.text
    assert dry.json()["parameters"]["contact_email"] == "***"
    assert dry.json()["edits"][0]["values"] == {"contact_email": "***"}
    admin = await world.run("admin", "set_supplier_contact", {**body, "dry_run": True})
    assert admin.json()["edits"][0]["values"] == {"contact_email": email}
    done = await world.run("supplier_editor", "set_supplier_contact", body)
    assert done.status_code == 200, done.text
    assert email not in done.text
    assert await world.value("Supplier", "S-1004", "contact_email", "work") == email


async def test_a_refusal_does_not_show_which_records_hold_an_unreadable_value(
    world: World,
) -> None:
    taken = "DE281746350"  # S-1002's VAT number (confidential)
    body = {"parameters": {"key": "S-1001", "vat_number": taken}, "branch": "work"}
    dry = await world.run("supplier_editor", "set_supplier_vat", {**body, "dry_run": True})
    assert dry.status_code == 200, dry.text
    [violation] = dry.json()["violations"]
    assert violation["code"] == "value.unique"
    assert violation["path"] == "Supplier vat_number"
    assert taken not in dry.text
    assert "S-1002" not in dry.text
    refused = await world.run("supplier_editor", "set_supplier_vat", body)
    problem = assert_problem(refused, 422, "values-invalid")
    assert problem["issues"] == [violation]
    assert "S-1002" not in refused.text
    admin = await world.run("admin", "set_supplier_vat", body)
    assert "S-1002" in assert_problem(admin, 422, "values-invalid")["issues"][0]["path"]  # type: ignore[index]


# -- writes that are not Operations --------------------------------------------------------------


async def test_vectors_of_invisible_kinds_answer_like_unknown_kinds(world: World) -> None:
    body = {"model": "m", "vector": [0.1, 0.2]}
    unknown = await world.api.put(
        f"{API}/kinds/Nothing/records/S-1001/vector", json=body, headers=world["part_editor"]
    )
    problem = assert_problem(unknown, 404, "kind-not-found")
    hidden = await world.api.put(
        f"{API}/kinds/Supplier/records/S-1001/vector", json=body, headers=world["part_editor"]
    )
    found = assert_problem(hidden, 404, "kind-not-found")
    assert found["detail"] == str(problem["detail"]).replace("Nothing", "Supplier")
    split = await world.api.put(
        f"{API}/kinds/Supplier/records/S-1001/vector", json=body, headers=world["split"]
    )
    assert_problem(split, 403, "kind-forbidden")
    visible = await world.api.put(
        f"{API}/kinds/Part/records/P-10028/vector", json=body, headers=world["part_editor"]
    )
    assert_problem(visible, 422, "search-invalid")  # past the scope: model "m" is not the schema's


async def _feature(world: World, name: str, *, supplier: bool, part: bool) -> None:
    """A branch of `work` changing a Supplier and/or a Part (written by the full editor)."""
    await world.branch(name, "work")
    if supplier:
        done = await world.run(
            "editor", "update_supplier", {"parameters": SUPPLIER, "branch": name}
        )
        assert done.status_code == 200, done.text
    if part:
        cost = {"key": "P-10028", "unit_cost": "29.99"}
        done = await world.run("editor", "update_part", {"parameters": cost, "branch": name})
        assert done.status_code == 200, done.text


async def test_a_branch_merge_reaching_an_invisible_kind_is_refused(world: World) -> None:
    await _feature(world, "mixed", supplier=True, part=True)
    await _feature(world, "parts", supplier=False, part=True)
    before = await world.head("work")
    refused = await world.api.post(
        f"{API}/branches/mixed/merge", json={"into": "work"}, headers=world["part_reviewer"]
    )
    problem = assert_problem(refused, 403, "merge-outside-scope")
    assert "S-1001" not in refused.text
    assert "Supplier" not in refused.text
    assert problem["source"] == "mixed"
    assert await world.head("work") == before
    merged = await world.api.post(
        f"{API}/branches/parts/merge", json={"into": "work"}, headers=world["part_reviewer"]
    )
    assert merged.status_code == 200, merged.text
    assert await world.value("Part", "P-10028", "unit_cost", "work") == "29.99"
    full = await world.api.post(
        f"{API}/branches/mixed/merge", json={"into": "work"}, headers=world["admin"]
    )
    assert full.status_code == 200, full.text


async def test_a_refused_branch_merge_masks_the_values_of_its_conflicts(world: World) -> None:
    await world.branch("contact", "work")
    for branch, email in (("work", "a@valtera.example"), ("contact", "b@valtera.example")):
        body = {"parameters": {"key": "S-1004", "contact_email": email}, "branch": branch}
        done = await world.run("editor", "set_supplier_contact", body)
        assert done.status_code == 200, done.text
    url = f"{API}/branches/contact/merge"
    refused = await world.api.post(url, json={"into": "work"}, headers=world["reviewer"])
    problem = assert_problem(refused, 409, "merge-conflicts")
    assert "valtera.example" not in refused.text
    [conflict] = problem["conflicts"]  # type: ignore[misc]
    assert (conflict["attribute"], conflict["source"], conflict["target"]) == (
        "contact_email",
        "***",
        "***",
    )
    admin = await world.api.post(url, json={"into": "work"}, headers=world["admin"])
    assert assert_problem(admin, 409, "merge-conflicts")["conflicts"][0]["source"] == (  # type: ignore[index]
        "b@valtera.example"
    )


async def test_a_proposal_reaching_an_invisible_kind_is_not_merged_by_a_narrowed_reviewer(
    world: World,
) -> None:
    await _feature(world, "mixed", supplier=True, part=True)
    await _feature(world, "parts", supplier=False, part=True)
    ids = {}
    for source in ("mixed", "parts"):
        opened = await world.api.post(
            f"{API}/proposals", json={"source": source, "target": "work"}, headers=world["editor"]
        )
        assert opened.status_code == 201, opened.text
        ids[source] = opened.json()["id"]
    before = await world.head("work")
    refused = await world.api.post(
        f"{API}/proposals/{ids['mixed']}/merge", json={}, headers=world["part_reviewer"]
    )
    assert_problem(refused, 403, "merge-outside-scope")
    assert "Supplier" not in refused.text
    assert "S-1001" not in refused.text
    assert await world.head("work") == before
    assert world.store.writes.proposal("supply", ids["mixed"]).status == "open"
    merged = await world.api.post(
        f"{API}/proposals/{ids['parts']}/merge", json={}, headers=world["part_reviewer"]
    )
    assert merged.status_code == 200, merged.text
    full = await world.api.post(
        f"{API}/proposals/{ids['mixed']}/merge", json={}, headers=world["admin"]
    )
    assert full.status_code == 200, full.text


async def test_the_agent_flow_does_not_merge_what_others_wrote_beyond_the_agents_kinds(
    merging: World,
) -> None:
    world = merging
    first = {"parameters": {"key": "P-10028", "unit_cost": "30.40"}, "task": "cost"}
    proposed = await world.run("part_agent", "update_part", {**first, "auto_merge": False})
    assert proposed.status_code == 202, proposed.text
    task_branch = proposed.json()["branch"]
    other = {"parameters": SUPPLIER, "branch": task_branch}  # an editor of agent/* writes there
    assert (await world.run("editor", "update_supplier", other)).status_code == 200
    before = await world.head("main")
    again = {"parameters": {"key": "P-10028", "unit_cost": "30.50"}, "task": "cost"}
    answer = await world.run("part_agent", "update_part", {**again, "auto_merge": True})
    assert answer.status_code == 202, answer.text
    assert answer.json()["merge"]["performed"] is False
    assert answer.json()["merge"]["allowed"] is False
    assert "S-1001" not in answer.text
    assert await world.head("main") == before
    alone = {"parameters": {"key": "P-10028", "unit_cost": "30.60"}, "task": "alone"}
    merged = await world.run("part_agent", "update_part", {**alone, "auto_merge": True})
    assert merged.status_code == 200, merged.text
    assert merged.json()["status"] == "merged"
