"""Who may read what, as a caller meets it: grants, invisible Kinds, masking, branch creation.

The principals are those of conftest.py: `admin` (admin on supply), `viewer` (viewer, no
clearances), `supplier` (viewer narrowed to Supplier) and `agent` (viewer on main, editor on
agent/*); `grant_key` makes others. Who a caller is: test_authenticate.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from packages.keeper.tests.conftest import client_of

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem, grant_key
from lorebase_platform.settings import Settings
from lorebase_store import Store

SUPPLY = "/api/v1/domains/supply"
VAT_NUMBER = "PL7792438105"
CONTACT_EMAIL = "marta.wisniewska@kavsen.example"
MASK = "***"


# -- grants ---------------------------------------------------------------------------------------

UNGRANTED_READS = [
    pytest.param("/schema", id="schema"),
    pytest.param("/kinds/Supplier/records", id="records"),
    pytest.param("/kinds/Supplier/records/S-1001", id="record"),
    pytest.param("/kinds/Supplier/records/S-1001/links/supplies", id="links"),
    pytest.param("/kinds/Supplier/records/S-1001/history", id="history"),
    pytest.param("/kinds/Supplier/records/S-1001/lineage", id="lineage"),
    pytest.param("/kinds/Supplier/records/S-1001/explain", id="explain"),
    pytest.param("/diff?from=main&to=main", id="diff"),
    pytest.param("/branches", id="branches"),
    pytest.param("/branches/main", id="branch"),
    pytest.param("/tags", id="tags"),
    pytest.param("/proposals", id="proposals"),
    pytest.param("/proposals/prp_nothing", id="proposal"),  # known or not, alike
    pytest.param("/proposals/prp_nothing/conflicts", id="conflicts"),
    pytest.param("/webhooks", id="webhooks"),
    pytest.param("/branches/main/changes", id="changes"),
    pytest.param("/branches/main/events", id="events"),
]


@pytest.mark.anyio
@pytest.mark.parametrize("path", UNGRANTED_READS)
async def test_a_principal_without_a_grant_on_the_domain_is_404_like_an_unknown_domain(
    keeper: FastAPI, supply: Store, path: str
) -> None:
    key = grant_key(supply, "usr_elsewhere")
    supply.add_grant("usr_elsewhere", domain="other", role="admin")
    async with client_of(keeper, Keys.header(key)) as http:
        response = await http.get(f"{SUPPLY}{path}")
    document = assert_problem(response, 404, "domain-not-found")
    assert document["detail"] == "Domain 'supply' does not exist"


@pytest.mark.anyio
async def test_a_principal_without_a_grant_lists_no_domain(keeper: FastAPI, supply: Store) -> None:
    key = grant_key(supply, "usr_nobody")
    async with client_of(keeper, Keys.header(key)) as http:
        response = await http.get("/api/v1/domains")
    assert response.status_code == 200
    assert response.json() == {"domains": []}


@pytest.mark.anyio
async def test_a_viewer_lists_the_supply_domain(keeper: FastAPI, keys: Keys) -> None:
    async with client_of(keeper, Keys.header(keys.viewer)) as http:
        response = await http.get("/api/v1/domains")
    assert [domain["name"] for domain in response.json()["domains"]] == ["supply"]


@pytest.mark.anyio
async def test_a_withdrawn_grant_is_404_on_the_next_request(keeper: FastAPI, supply: Store) -> None:
    key = grant_key(supply, "usr_temp", domain="supply", role="viewer")
    [grant] = supply.grants("usr_temp")
    async with client_of(keeper, Keys.header(key)) as http:
        before = await http.get(f"{SUPPLY}/schema")
        supply.revoke_grant(grant.id)
        after = await http.get(f"{SUPPLY}/schema")
    assert before.status_code == 200
    assert_problem(after, 404, "domain-not-found")  # no grant left: as if it did not exist


@pytest.mark.anyio
async def test_a_grant_on_main_does_not_read_other_branches(
    keeper: FastAPI, keys: Keys, http: httpx.AsyncClient
) -> None:
    created = await http.post(f"{SUPPLY}/branches", json={"name": "feature-y"})
    assert created.status_code == 201
    async with client_of(keeper, Keys.header(keys.agent)) as agent:
        response = await agent.get(f"{SUPPLY}/kinds/Supplier/records/S-1001?branch=feature-y")
        listed = await agent.get(f"{SUPPLY}/branches")
    assert_problem(response, 403, "forbidden")
    assert [branch["name"] for branch in listed.json()["branches"]] == ["main"]


# -- a grant narrowed to Supplier: the other Kinds are invisible -----------------------------------


@pytest.fixture
async def supplier_http(keeper: FastAPI, keys: Keys) -> AsyncIterator[httpx.AsyncClient]:
    async with client_of(keeper, Keys.header(keys.supplier)) as http:
        yield http


@pytest.mark.anyio
async def test_a_narrowed_schema_lists_only_the_readable_kind(
    supplier_http: httpx.AsyncClient,
) -> None:
    document = (await supplier_http.get(f"{SUPPLY}/schema")).json()
    assert [kind["name"] for kind in document["kinds"]] == ["Supplier"]
    assert document["relations"] == []
    assert [(trait["name"], trait["kinds"]) for trait in document["traits"]] == [
        ("Located", ["Supplier"])
    ]


@pytest.mark.anyio
async def test_a_narrowed_schema_keeps_a_lens_with_its_readable_kinds_only(
    supplier_http: httpx.AsyncClient,
) -> None:
    [lens] = (await supplier_http.get(f"{SUPPLY}/schema")).json()["lenses"]
    assert lens["name"] == "supplier_risk"
    assert lens["kinds"] == ["Supplier"]
    assert lens["relations"] == []


@pytest.mark.anyio
async def test_a_lens_none_of_whose_kinds_is_readable_is_left_out(
    keeper: FastAPI, supply: Store
) -> None:
    key = grant_key(supply, "usr_plants", domain="supply", role="viewer", kinds=["Plant"])
    async with client_of(keeper, Keys.header(key)) as http:
        document = (await http.get(f"{SUPPLY}/schema")).json()
    assert [kind["name"] for kind in document["kinds"]] == ["Plant"]
    assert document["lenses"] == []


@pytest.mark.anyio
async def test_a_narrowed_schema_keeps_relations_between_readable_kinds(
    keeper: FastAPI, supply: Store
) -> None:
    key = grant_key(supply, "usr_buyer", domain="supply", role="viewer", kinds=["Part", "Supplier"])
    async with client_of(keeper, Keys.header(key)) as http:
        document = (await http.get(f"{SUPPLY}/schema")).json()
    assert [relation["name"] for relation in document["relations"]] == ["supplied_by"]
    [lens] = document["lenses"]
    assert lens["kinds"] == ["Supplier", "Part"]
    assert lens["relations"] == ["supplied_by"]


def _same_problem(invisible: dict[str, Any], unknown: dict[str, Any], name: str) -> None:
    """Two problem documents alike but for the Kind name each names."""
    assert {**invisible, "detail": "", "instance": ""} == {**unknown, "detail": "", "instance": ""}
    assert invisible["detail"] == unknown["detail"].replace("Nowhere", name)


@pytest.mark.anyio
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/kinds/{kind}/records", id="records"),
        pytest.param("/kinds/{kind}/records/P-10028", id="record"),
        pytest.param("/kinds/{kind}/records/P-10028?links=true", id="record-links"),
        pytest.param("/kinds/{kind}/records/P-10028/links/supplied_by", id="links"),
        pytest.param("/kinds/{kind}/records/P-10028/history", id="history"),
        pytest.param("/kinds/{kind}/records/P-10028/lineage", id="lineage"),
        pytest.param("/kinds/{kind}/records/P-10028/explain", id="explain"),
        pytest.param("/kinds/{kind}/records/P-10028/explain?format=markdown", id="markdown"),
    ],
)
async def test_an_invisible_kind_answers_like_an_unknown_kind(
    supplier_http: httpx.AsyncClient, path: str
) -> None:
    invisible = await supplier_http.get(SUPPLY + path.format(kind="Part"))
    unknown = await supplier_http.get(SUPPLY + path.format(kind="Nowhere"))
    _same_problem(
        assert_problem(invisible, 404, "kind-not-found"),
        assert_problem(unknown, 404, "kind-not-found"),
        "Part",
    )


@pytest.mark.anyio
@pytest.mark.parametrize(
    "relation", [pytest.param("supplies", id="inverse"), pytest.param("with_supplier", id="other")]
)
async def test_a_relation_to_an_invisible_kind_answers_like_an_unknown_one(
    supplier_http: httpx.AsyncClient, relation: str
) -> None:
    invisible = await supplier_http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001/links/{relation}")
    unknown = await supplier_http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001/links/nowhere")
    invisible_document = assert_problem(invisible, 404, "relation-not-found")
    unknown_document = assert_problem(unknown, 404, "relation-not-found")
    assert invisible_document["detail"] == str(unknown_document["detail"]).replace(
        "nowhere", relation
    )


@pytest.mark.anyio
async def test_narrowed_link_counts_name_no_relation_to_an_invisible_kind(
    supplier_http: httpx.AsyncClient,
) -> None:
    response = await supplier_http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001?links=true")
    assert response.status_code == 200
    assert response.json()["links"] == {}


@pytest.mark.anyio
async def test_a_narrowed_explain_lists_no_link_to_an_invisible_kind(
    supplier_http: httpx.AsyncClient,
) -> None:
    response = await supplier_http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001/explain")
    assert response.status_code == 200
    assert response.json()["links"] == []
    assert "Part/" not in response.text


@pytest.mark.anyio
async def test_a_diff_needs_a_grant_not_narrowed_to_kinds(
    supplier_http: httpx.AsyncClient, supply: Store
) -> None:
    log = supply.log("supply")
    response = await supplier_http.get(f"{SUPPLY}/diff?from={log[-1].id}&to={log[0].id}")
    assert_problem(response, 403, "history-forbidden")


@pytest.mark.anyio
async def test_a_narrowed_grant_reads_the_kind_it_names(
    supplier_http: httpx.AsyncClient,
) -> None:
    response = await supplier_http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001")
    assert response.status_code == 200
    assert response.json()["title"] == "Kavsen Alloys Sp. z o.o."


@pytest.mark.anyio
async def test_history_needs_a_grant_not_narrowed_to_kinds(
    supplier_http: httpx.AsyncClient,
) -> None:
    response = await supplier_http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001/history")
    assert_problem(response, 403, "history-forbidden")


@pytest.mark.anyio
async def test_lineage_is_a_record_read_for_a_narrowed_grant(
    supplier_http: httpx.AsyncClient,
) -> None:
    response = await supplier_http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001/lineage")
    assert response.status_code == 200
    assert response.json()["attributes"]["risk_score"]["message"] == "Raise the risk of S-1001"


@pytest.mark.anyio
async def test_one_grant_without_kinds_reads_everything(keeper: FastAPI, supply: Store) -> None:
    key = grant_key(supply, "usr_both", domain="supply", role="viewer", kinds=["Supplier"])
    supply.add_grant("usr_both", domain="supply", role="reviewer")
    async with client_of(keeper, Keys.header(key)) as http:
        part = await http.get(f"{SUPPLY}/kinds/Part/records/P-10028")
        history = await http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001/history")
    assert part.status_code == 200
    assert history.status_code == 200


@pytest.fixture
def visible_keeper(supply: Store) -> FastAPI:
    settings = Settings(
        keeper={
            "auth": {
                "mode": "api_key",
                "authz": {"invisible_kinds": False, "grants_cache_ttl_s": 0},
            }
        }
    )
    return create_app(settings, store=supply)


@pytest.mark.anyio
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/kinds/Part/records", id="records"),
        pytest.param("/kinds/Part/records/P-10028", id="record"),
        pytest.param("/kinds/Part/records/P-10028/explain", id="explain"),
        pytest.param("/kinds/Supplier/records/S-1001/links/supplies", id="relation"),
    ],
)
async def test_without_invisible_kinds_a_kind_outside_the_grant_is_403(
    visible_keeper: FastAPI, keys: Keys, path: str
) -> None:
    async with client_of(visible_keeper, Keys.header(keys.supplier)) as http:
        response = await http.get(f"{SUPPLY}{path}")
    assert_problem(response, 403, "kind-forbidden")


@pytest.mark.anyio
async def test_without_invisible_kinds_an_unknown_kind_is_still_404(
    visible_keeper: FastAPI, keys: Keys
) -> None:
    async with client_of(visible_keeper, Keys.header(keys.supplier)) as http:
        response = await http.get(f"{SUPPLY}/kinds/Nowhere/records")
    assert_problem(response, 404, "kind-not-found")


@pytest.mark.anyio
async def test_without_invisible_kinds_lists_and_counts_still_leave_them_out(
    visible_keeper: FastAPI, keys: Keys
) -> None:
    async with client_of(visible_keeper, Keys.header(keys.supplier)) as http:
        schema = (await http.get(f"{SUPPLY}/schema")).json()
        record = (await http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001?links=true")).json()
    assert [kind["name"] for kind in schema["kinds"]] == ["Supplier"]
    assert record["links"] == {}


# -- sensitive values ------------------------------------------------------------------------------


def _record_values(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [document["values"]]


def _listed_values(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [record["values"] for record in document["records"] if record["key"] == "S-1001"]


def _history_values(document: dict[str, Any]) -> list[dict[str, Any]]:
    sides = [side for change in document["changes"] for side in (change["before"], change["after"])]
    return [side for side in sides if side is not None]  # nothing before the creation


def _explained_values(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [{entry["name"]: entry["value"] for entry in document["attributes"]}]


def _diff_values(document: dict[str, Any]) -> list[dict[str, Any]]:
    [entry] = [entry for entry in document["records"] if entry["ref"] == "Supplier/S-1001"]
    return [entry["before"], entry["after"]]


Extract = Callable[[dict[str, Any]], list[dict[str, Any]]]

VALUE_READS = [
    pytest.param("/kinds/Supplier/records/S-1001", _record_values, id="record"),
    pytest.param("/kinds/Supplier/records?limit=5", _listed_values, id="list"),
    pytest.param(
        "/kinds/Supplier/records/S-1001/history?values=true", _history_values, id="history"
    ),
    pytest.param("/kinds/Supplier/records/S-1001/explain", _explained_values, id="explain"),
    pytest.param("/diff?from={first}&to={head}", _diff_values, id="diff"),
]


async def _values_read(
    keeper: FastAPI, supply: Store, key: str, path: str, extract: Extract
) -> list[dict[str, Any]]:
    log = supply.log("supply")
    async with client_of(keeper, Keys.header(key)) as http:
        response = await http.get(SUPPLY + path.format(first=log[-1].id, head=log[0].id))
    assert response.status_code == 200, response.text
    found = extract(response.json())
    assert found, "the read carried no values of S-1001"
    return found


@pytest.mark.anyio
@pytest.mark.parametrize(("path", "extract"), VALUE_READS)
async def test_a_viewer_without_clearances_reads_sensitive_values_masked(
    keeper: FastAPI, keys: Keys, supply: Store, path: str, extract: Extract
) -> None:
    for values in await _values_read(keeper, supply, keys.viewer, path, extract):
        assert values["vat_number"] == MASK
        assert values["contact_email"] == MASK
        assert values["legal_name"] == "Kavsen Alloys Sp. z o.o."


@pytest.mark.anyio
@pytest.mark.parametrize(("path", "extract"), VALUE_READS)
async def test_the_admin_reads_sensitive_values_unmasked(
    keeper: FastAPI, keys: Keys, supply: Store, path: str, extract: Extract
) -> None:
    for values in await _values_read(keeper, supply, keys.admin, path, extract):
        assert values["vat_number"] == VAT_NUMBER
        assert values["contact_email"] == CONTACT_EMAIL


@pytest.mark.anyio
@pytest.mark.parametrize(("path", "extract"), VALUE_READS)
async def test_a_pii_clearance_unmasks_pii_values_only(
    keeper: FastAPI, supply: Store, path: str, extract: Extract
) -> None:
    key = grant_key(supply, "usr_pii", domain="supply", role="viewer", clearances=["pii"])
    for values in await _values_read(keeper, supply, key, path, extract):
        assert values["contact_email"] == CONTACT_EMAIL
        assert values["vat_number"] == MASK


@pytest.mark.anyio
async def test_masked_values_are_masked_in_explain_markdown(keeper: FastAPI, keys: Keys) -> None:
    async with client_of(keeper, Keys.header(keys.viewer)) as http:
        response = await http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001/explain?format=markdown")
    assert response.status_code == 200
    assert "| vat_number | *** |" in response.text
    assert VAT_NUMBER not in response.text
    assert CONTACT_EMAIL not in response.text


@pytest.mark.anyio
async def test_the_schema_still_describes_masked_attributes(keeper: FastAPI, keys: Keys) -> None:
    async with client_of(keeper, Keys.header(keys.viewer)) as http:
        document = (await http.get(f"{SUPPLY}/schema")).json()
    [supplier] = [kind for kind in document["kinds"] if kind["name"] == "Supplier"]
    sensitivity = {
        attribute["name"]: attribute.get("sensitivity") for attribute in supplier["attributes"]
    }
    assert sensitivity["vat_number"] == ["confidential"]
    assert sensitivity["contact_email"] == ["pii"]


# -- creating branches ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_an_agent_does_not_create_its_task_branches_directly(
    keeper: FastAPI, keys: Keys
) -> None:
    # branch.create on agent/* is for the agent flow, which alone makes names under the prefix
    async with client_of(keeper, Keys.header(keys.agent)) as http:
        response = await http.post(f"{SUPPLY}/branches", json={"name": "agent/svc_agent/t1"})
    document = assert_problem(response, 422, "branch-name-reserved")
    assert document["reserved_prefix"] == "agent/"


@pytest.mark.anyio
async def test_an_agent_may_not_create_a_branch_outside_its_prefix(
    keeper: FastAPI, keys: Keys, http: httpx.AsyncClient
) -> None:
    async with client_of(keeper, Keys.header(keys.agent)) as agent:
        response = await agent.post(f"{SUPPLY}/branches", json={"name": "feature-x"})
    document = assert_problem(response, 403, "forbidden")
    assert document["permission"] == "branch.create"
    names = [branch["name"] for branch in (await http.get(f"{SUPPLY}/branches")).json()["branches"]]
    assert "feature-x" not in names


@pytest.mark.anyio
async def test_a_viewer_may_not_create_a_branch(keeper: FastAPI, keys: Keys) -> None:
    async with client_of(keeper, Keys.header(keys.viewer)) as http:
        response = await http.post(f"{SUPPLY}/branches", json={"name": "viewer-branch"})
    assert_problem(response, 403, "forbidden")


@pytest.mark.anyio
async def test_a_branch_needs_data_read_on_its_source(keeper: FastAPI, supply: Store) -> None:
    key = grant_key(supply, "usr_sandbox", domain="supply", role="editor", branch="sandbox/*")
    async with client_of(keeper, Keys.header(key)) as http:
        response = await http.post(f"{SUPPLY}/branches", json={"name": "sandbox/one"})
    assert_problem(response, 403, "forbidden")
