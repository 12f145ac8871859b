"""Proposals, Conflicts, reviews and the audit under the read scope (docs/auth.md).

The supply example gets three more Operations (`update_part`, `set_supplier_contact`,
`set_supply_lead_time`) and an agent opens, through the real agent flow, Proposals touching only
Supplier, only Part, and both; a first Proposal touching both is merged so that the others meet
Conflicts. Then every principal reads and acts: an administrator, a viewer without clearances,
viewers and reviewers narrowed to Part or to Supplier, and a principal without a grant. No answer
a principal narrowed to one Kind gets may name a key, an Attribute, an Operation or a text of the
other Kind.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from packages.keeper.tests.conftest import ROOT, supply_with_operations

from lorebase_keeper.app import create_app
from lorebase_keeper.http.paging import encode_cursor
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store

pytestmark = pytest.mark.anyio

API = "/api/v1/domains/supply"
AGENT = "svc_agent"
SUPPLY = ROOT / "examples" / "supply"

OPERATIONS = """
  update_part:
    description: Change the standard cost of a part.
    parameters:
      key: {type: string, required: true, pattern: "^P-[0-9]{5}$", description: The part number.}
      unit_cost: {type: "decimal(10,2)", min: 0, description: New standard cost.}
    edits:
      - update_record: {kind: Part, key: $key, values: {unit_cost: $unit_cost}}

  set_supplier_contact:
    description: Set the account manager's e-mail address of a supplier.
    parameters:
      key: {type: string, required: true, pattern: "^S-[0-9]{4}$", description: The supplier.}
      contact_email: {type: string, description: The address (the parameter is not tagged).}
    edits:
      - update_record: {kind: Supplier, key: $key, values: {contact_email: $contact_email}}

  set_supply_lead_time:
    description: Record that a supplier supplies a part, with the lead time.
    parameters:
      part: {type: string, required: true, description: The part number.}
      supplier: {type: string, required: true, description: The supplier code.}
      lead_time_days: {type: integer, min: 0, description: Lead time in days.}
    edits:
      - upsert_link:
          relation: supplied_by
          from: $part
          to: $supplier
          values: {lead_time_days: $lead_time_days}
"""

SUPPLIER_MARKS = (
    "S-1004",
    "Supplier/",
    "risk_score",
    "contact_email",
    "update_supplier",
    "set_supplier_contact",
    "set_supply_lead_time",
    "supplied_by",
    "anna.kowalska",
    "Valtera",
)
"""What of Suppliers may reach an answer (keys, Attributes, Operations, values, texts)."""

PART_MARKS = (
    "P-10028",
    "Part/",
    "unit_cost",
    "update_part",
    "set_supply_lead_time",
    "supplied_by",
    "31.57",
    "32.75",
    "Seal cost",
)
"""What of Parts may reach an answer."""


@dataclass(frozen=True)
class Principal:
    name: str
    headers: dict[str, str]
    sees: frozenset[str]
    """The Kinds of the example it reads: Supplier, Part (empty: no grant)."""
    reviews: bool = False

    @property
    def hidden_marks(self) -> tuple[str, ...]:
        if self.sees == {"Part"}:
            return SUPPLIER_MARKS
        if self.sees == {"Supplier"}:
            return PART_MARKS
        return ()


@dataclass
class World:
    api: httpx.AsyncClient
    store: Store
    principals: dict[str, Principal]
    proposals: dict[str, str]
    """first (both, merged), supplier, part, both: Proposal ids."""
    touches: dict[str, frozenset[str]]

    def __getitem__(self, name: str) -> Principal:
        return self.principals[name]


def visible(world: World, principal: Principal, proposal: str) -> bool:
    return bool(world.touches[proposal] & principal.sees)


def assert_hides(principal: Principal, answer: httpx.Response, where: str) -> None:
    for mark in principal.hidden_marks:
        # A mark is a whole token: a value such as 31.57 must not match inside a timestamp's
        # seconds (10:17:31.575671Z).
        found = re.search(rf"(?<![\w:.]){re.escape(mark)}(?![\d])", answer.text)
        assert found is None, f"{principal.name} reads {mark!r} in {where}: {answer.text}"


@pytest.fixture
def supply_plus(store: Store, tmp_path: Path) -> Store:
    """The supply example with three more Operations."""
    return supply_with_operations(store, tmp_path, OPERATIONS)


def _principals(store: Store) -> dict[str, Principal]:
    def key(name: str, kind: str = "user") -> dict[str, str]:
        store.ensure_principal(name, principal_type=kind)  # type: ignore[arg-type]
        return Keys.header(store.create_key(name).secret)

    both = frozenset({"Supplier", "Part"})
    found = {
        "admin": Principal("admin", key("usr_admin"), both, reviews=True),
        "viewer": Principal("viewer", key("usr_viewer"), both),
        "part": Principal("part", key("usr_part"), frozenset({"Part"})),
        "supplier": Principal("supplier", key("usr_supplier"), frozenset({"Supplier"})),
        "nobody": Principal("nobody", key("usr_nobody"), frozenset()),
        "part_reviewer": Principal(
            "part_reviewer", key("usr_part_reviewer"), frozenset({"Part"}), reviews=True
        ),
        "supplier_reviewer": Principal(
            "supplier_reviewer", key("usr_supplier_reviewer"), frozenset({"Supplier"}), True
        ),
        "reviewer": Principal("reviewer", key("usr_reviewer"), both, reviews=True),
        "agent": Principal("agent", key(AGENT, "service"), both),
    }
    store.add_grant("usr_admin", domain="supply", role="admin")
    store.add_grant("usr_viewer", domain="supply", role="viewer")
    store.add_grant("usr_part", domain="supply", role="viewer", kinds=["Part"])
    store.add_grant("usr_supplier", domain="supply", role="viewer", kinds=["Supplier"])
    store.add_grant("usr_part_reviewer", domain="supply", role="reviewer", kinds=["Part"])
    store.add_grant("usr_supplier_reviewer", domain="supply", role="reviewer", kinds=["Supplier"])
    store.add_grant("usr_reviewer", domain="supply", role="reviewer")
    store.add_grant(AGENT, domain="supply", role="editor", branch="main")
    store.add_grant(AGENT, domain="supply", role="editor", branch="agent/*")
    return found


@pytest.fixture
async def api(supply_plus: Store) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}})
    app: FastAPI = create_app(settings, store=supply_plus)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://keeper.test"
    ) as client:
        yield client


async def _execute(
    api: httpx.AsyncClient,
    agent: Principal,
    operation: str,
    parameters: dict[str, Any],
    task: str,
    intent: str | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"parameters": parameters, "task": task}
    if intent is not None:
        body["intent"] = intent
    answer = await api.post(
        f"{API}/operations/{operation}/execute", json=body, headers=agent.headers
    )
    assert answer.status_code == 202, answer.text
    return dict(answer.json())


@pytest.fixture
async def world(api: httpx.AsyncClient, supply_plus: Store) -> World:
    principals = _principals(supply_plus)
    agent, reviewer, admin = principals["agent"], principals["reviewer"], principals["admin"]
    run = _execute
    first = await run(api, agent, "update_supplier", {"key": "S-1004", "risk_score": 50}, "ta")
    await run(api, agent, "update_part", {"key": "P-10028", "unit_cost": "30.00"}, "ta")
    supplier = await run(
        api,
        agent,
        "update_supplier",
        {"key": "S-1004", "risk_score": 67},
        "ts",
        "Valtera audit raises the score",
    )
    await run(
        api,
        agent,
        "set_supplier_contact",
        {"key": "S-1004", "contact_email": "anna.kowalska@valtera.example"},
        "ts",
    )
    part = await run(
        api, agent, "update_part", {"key": "P-10028", "unit_cost": "31.57"}, "tp", "Seal cost"
    )
    both = await run(
        api,
        agent,
        "update_supplier",
        {"key": "S-1004", "risk_score": 68},
        "tb",
        "Valtera and Seal cost together",
    )
    await run(api, agent, "update_part", {"key": "P-10028", "unit_cost": "32.75"}, "tb")
    await run(
        api,
        agent,
        "set_supply_lead_time",
        {"part": "P-10028", "supplier": "S-1004", "lead_time_days": 17},
        "tb",
    )
    ids = {
        "first": first["proposal"]["id"],
        "supplier": supplier["proposal"]["id"],
        "part": part["proposal"]["id"],
        "both": both["proposal"]["id"],
    }
    comments = {
        "first": "First Valtera and Seal cost",
        "supplier": "Valtera S-1004 looks right",
        "part": "Seal cost P-10028 fine",
        "both": "Valtera and Seal cost both",
    }
    for name, proposal in ids.items():
        reviewed = await api.post(
            f"{API}/proposals/{proposal}/reviews",
            json={"verdict": "approve", "body": comments[name]},
            headers=reviewer.headers,
        )
        assert reviewed.status_code == 201, reviewed.text
    merged = await api.post(f"{API}/proposals/{ids['first']}/merge", headers=admin.headers)
    assert merged.status_code == 200, merged.text
    for name in ("supplier", "part", "both"):  # each attempt now meets the first's changes
        refused = await api.post(f"{API}/proposals/{ids[name]}/merge", headers=admin.headers)
        assert_problem(refused, 409, "merge-conflicts")
    return World(
        api,
        supply_plus,
        principals,
        ids,
        {
            "first": frozenset({"Supplier", "Part"}),
            "supplier": frozenset({"Supplier"}),
            "part": frozenset({"Part"}),
            "both": frozenset({"Supplier", "Part"}),
        },
    )


READERS = ["admin", "viewer", "part", "supplier", "nobody"]


@pytest.mark.parametrize("who", [pytest.param(name, id=name) for name in READERS])
async def test_reads_of_proposals_keep_to_the_read_scope(world: World, who: str) -> None:
    principal, api = world[who], world.api
    listed = await api.get(f"{API}/proposals", headers=principal.headers)
    if not principal.sees:
        assert_problem(listed, 404, "domain-not-found")  # a foreign Domain is unknown
    else:
        assert listed.status_code == 200, listed.text
        expected = [p for name, p in world.proposals.items() if visible(world, principal, name)]
        assert [p["id"] for p in listed.json()["proposals"]] == sorted(expected)
        assert_hides(principal, listed, "the list")
    for name, proposal in world.proposals.items():
        url = f"{API}/proposals/{proposal}"
        got = await api.get(url, headers=principal.headers)
        conflicts = await api.get(f"{url}/conflicts", headers=principal.headers)
        if not principal.sees:
            assert_problem(got, 404, "domain-not-found")
            assert_problem(conflicts, 404, "domain-not-found")
            continue
        if not visible(world, principal, name):
            assert_problem(got, 404, "proposal-not-found")
            assert_problem(conflicts, 404, "proposal-not-found")
            continue
        assert got.status_code == 200, got.text
        assert conflicts.status_code == 200, conflicts.text
        assert_hides(principal, got, f"GET {name}")
        assert_hides(principal, conflicts, f"the Conflicts of {name}")
        refs = sorted(c["ref"] for c in conflicts.json()["conflicts"])
        body = got.json()
        assert body["conflicts"]["open"] == len(refs)
        if name == "both":
            assert refs == sorted(
                ref
                for ref, kind in (("Part/P-10028", "Part"), ("Supplier/S-1004", "Supplier"))
                if kind in principal.sees
            )
            operations = [e["operation"] for e in body["executions"]]
            assert operations == {
                frozenset({"Part"}): ["update_part"],
                frozenset({"Supplier"}): ["update_supplier"],
            }.get(principal.sees, ["update_supplier", "update_part", "set_supply_lead_time"])


async def test_a_mixed_proposal_shows_no_free_text_to_a_narrowed_reader(world: World) -> None:
    api, both = world.api, world.proposals["both"]
    full = (await api.get(f"{API}/proposals/{both}", headers=world["viewer"].headers)).json()
    assert full["intent"] == "Valtera and Seal cost together"
    assert full["reviews"][0]["body"] == "Valtera and Seal cost both"
    assert full["description"].startswith("Valtera and Seal cost together\n\n- update_supplier(")
    part = (await api.get(f"{API}/proposals/{both}", headers=world["part"].headers)).json()
    assert part["title"] == full["title"] == "Agent svc_agent: tb"  # generated: it stays
    assert part["intent"] is None
    assert [r["body"] for r in part["reviews"]] == [""]
    assert [r["verdict"] for r in part["reviews"]] == ["approve"]
    [line] = [e["summary"] for e in part["executions"]]
    assert part["description"] == line
    assert line.startswith('- update_part(key="P-10028", unit_cost=32.75) [inv_')
    assert part["conflicts"] == {"open": 1, "resolved": 0}
    assert part["attempt"]["counts"] == {"modified-both": 1}
    assert full["attempt"]["counts"] == {"modified-both": 2}
    assert set(part) == set(full)


async def test_execution_values_follow_the_clearances(world: World) -> None:
    url = f"{API}/proposals/{world.proposals['supplier']}"
    admin = (await world.api.get(url, headers=world["admin"].headers)).json()
    viewer = (await world.api.get(url, headers=world["viewer"].headers)).json()
    supplier = (await world.api.get(url, headers=world["supplier"].headers)).json()
    assert 'contact_email="anna.kowalska@valtera.example"' in admin["executions"][1]["summary"]
    for seen in (viewer, supplier):
        assert "contact_email=***" in seen["executions"][1]["summary"]
        assert "anna.kowalska" not in str(seen)
        assert seen["description"].count("contact_email=***") == 1
    assert "risk_score=67" in viewer["description"]


async def test_an_invisible_proposal_answers_like_an_unknown_one(world: World) -> None:
    api, reviewer = world.api, world["part_reviewer"]
    hidden, unknown = world.proposals["supplier"], "prp_01JAAAAAAAAAAAAAAAAAAAAAAA"
    requests = [
        ("GET", "", None),
        ("GET", "/conflicts", None),
        ("POST", "/reviews", {"verdict": "comment", "body": "hello"}),
        ("POST", "/merge", {}),
        ("POST", "/close", None),
        ("POST", "/conflicts/cfl_01JAAAAAAAAAAAAAAAAAAAAAAA/resolve", {"resolution": "source"}),
    ]
    for method, tail, body in requests:
        answers = [
            await api.request(
                method, f"{API}/proposals/{p}{tail}", json=body, headers=reviewer.headers
            )
            for p in (hidden, unknown)
        ]
        documents = [assert_problem(a, 404, "proposal-not-found") for a in answers]
        same = json.loads(json.dumps(documents[0]).replace(hidden, unknown))
        assert same == documents[1], f"{method} {tail}"
        assert answers[0].headers.keys() == answers[1].headers.keys()
    still = await api.get(f"{API}/proposals/{hidden}", headers=world["admin"].headers)
    assert still.json()["status"] == "open"
    assert [r["body"] for r in still.json()["reviews"]] == ["Valtera S-1004 looks right"]


@pytest.mark.parametrize(
    ("who", "mine", "other"),
    [
        pytest.param("part_reviewer", "Part/P-10028", "Supplier/S-1004", id="part_reviewer"),
        pytest.param(
            "supplier_reviewer", "Supplier/S-1004", "Part/P-10028", id="supplier_reviewer"
        ),
    ],
)
async def test_narrowed_reviewers_act_on_the_parts_they_see(
    world: World, who: str, mine: str, other: str
) -> None:
    api, principal = world.api, world[who]
    own = "part" if "Part" in principal.sees else "supplier"
    url = f"{API}/proposals/{world.proposals['both']}"
    reviewed = await api.post(
        f"{url}/reviews", json={"verdict": "comment", "body": "Checked"}, headers=principal.headers
    )
    assert reviewed.status_code == 201, reviewed.text
    assert_hides(principal, reviewed, "a review answer")
    everything = (await api.get(f"{url}/conflicts", headers=world["admin"].headers)).json()
    by_ref = {c["ref"]: c["id"] for c in everything["conflicts"]}
    foreign = await api.post(
        f"{url}/conflicts/{by_ref[other]}/resolve",
        json={"resolution": "source"},
        headers=principal.headers,
    )
    assert_problem(foreign, 404, "conflict-not-found")
    resolved = await api.post(
        f"{url}/conflicts/{by_ref[mine]}/resolve",
        json={"resolution": "source"},
        headers=principal.headers,
    )
    assert resolved.status_code == 200, resolved.text
    assert_hides(principal, resolved, "a resolve answer")
    assert resolved.json()["conflicts"] == {"open": 0, "resolved": 1}
    blocked = await api.post(f"{url}/merge", json={}, headers=principal.headers)
    assert_problem(blocked, 403, "merge-outside-scope")  # it would write the other Kind
    assert_hides(principal, blocked, "a refused merge")
    mine_url = f"{API}/proposals/{world.proposals[own]}"
    conflicts = (await api.get(f"{mine_url}/conflicts", headers=principal.headers)).json()
    [conflict] = conflicts["conflicts"]
    await api.post(
        f"{mine_url}/conflicts/{conflict['id']}/resolve",
        json={"resolution": "source"},
        headers=principal.headers,
    )
    merged = await api.post(f"{mine_url}/merge", json={}, headers=principal.headers)
    assert merged.status_code == 200, merged.text
    assert merged.json()["status"] == "merged"
    assert_hides(principal, merged, "a merge answer")
    closed = await api.post(f"{url}/close", headers=principal.headers)
    assert closed.status_code == 200, closed.text
    assert closed.json()["status"] == "closed"
    assert_hides(principal, closed, "a close answer")


async def test_the_agent_flow_answers_within_the_agents_scope(world: World) -> None:
    api, store = world.api, world.store
    for grant in store.grants(AGENT):
        store.revoke_grant(grant.id)
    store.add_grant(AGENT, domain="supply", role="editor", branch="main", kinds=["Part"])
    store.add_grant(AGENT, domain="supply", role="editor", branch="agent/*", kinds=["Part"])
    agent = Principal("agent", world["agent"].headers, frozenset({"Part"}))
    answer = await api.post(
        f"{API}/operations/update_part/execute",
        json={"parameters": {"key": "P-10028", "unit_cost": "33.10"}, "task": "tb"},
        headers=agent.headers,
    )
    assert answer.status_code == 202, answer.text
    assert answer.json()["proposal"]["id"] == world.proposals["both"]
    assert answer.json()["attempt"]["counts"] == {"modified-both": 1}
    assert_hides(agent, answer, "the agent flow answer")
    refused = await api.post(
        f"{API}/operations/update_part/execute",
        json={"parameters": {"key": "P-10028", "unit_cost": "33.20"}, "auto_propose": False},
        headers=agent.headers,
    )
    problem = assert_problem(refused, 409, "review-required")
    listed = [p["id"] for p in problem["proposals"]]  # type: ignore[union-attr]
    assert listed == sorted([world.proposals["part"], world.proposals["both"]])
    assert_hides(agent, refused, "a review-required answer")


async def test_proposal_pages_are_opaque_and_count_only_what_is_seen(world: World) -> None:
    api, part = world.api, world["part"]
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        params: dict[str, Any] = {"limit": 1, **({"cursor": cursor} if cursor else {})}
        page = await api.get(f"{API}/proposals", params=params, headers=part.headers)
        assert page.status_code == 200, page.text
        pages += 1
        seen += [p["id"] for p in page.json()["proposals"]]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            break
        assert not cursor.startswith("prp_")
    assert seen == sorted(p for n, p in world.proposals.items() if n != "supplier")
    assert pages == 3  # no empty page where the invisible Proposal is
    for bad in ("nonsense", world.proposals["first"], encode_cursor("records:Part", "P-10028")):
        answer = await api.get(f"{API}/proposals", params={"cursor": bad}, headers=part.headers)
        assert_problem(answer, 400, "bad-cursor")


async def test_only_domain_wide_administrators_read_the_audit_log(world: World) -> None:
    """The audit log names every branch, Kind and Proposal of the Domain: it is readable only by
    administrators whose grant covers all of them (docs/auth.md), never by a narrowed one."""
    api, admin = world.api, world["admin"]
    assert world.store.writes.audit("supply")  # the steps above wrote it
    document = (await api.get("/openapi.json")).json()
    assert [path for path in document["paths"] if "audit" in path] == [
        "/api/v1/domains/{domain}/audit"
    ]
    answer = await api.get(f"{API}/audit", params={"kind": "write"}, headers=admin.headers)
    assert answer.status_code == 200
    assert answer.json()["entries"]
    world.store.ensure_principal("usr_part_admin")
    world.store.add_grant("usr_part_admin", domain="supply", role="admin", kinds=["Part"])
    part_admin = Keys.header(world.store.create_key("usr_part_admin").secret)
    for headers in (
        part_admin,
        *(world[name].headers for name in world.principals if name != "admin"),
    ):
        refused = await api.get(f"{API}/audit", headers=headers)
        assert refused.status_code in (403, 404), refused.text
        assert "entries" not in refused.json()
    assert (await api.get("/api/v1/audit", headers=admin.headers)).status_code == 404
