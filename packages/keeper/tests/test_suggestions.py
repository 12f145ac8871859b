"""Errors that say how to fix the problem: an unknown name answers with the closest ones.

Every suggestion comes from what the caller may see: a grant narrowed to Kinds never gets an
invisible Kind, Relation, Operation or lens suggested, a branch outside the grants is never
named, and an invisible name answers byte for byte like an unknown one (docs/auth.md).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from lorebase_keeper.testing import Keys, assert_problem, grant_key
from lorebase_store import Store

pytestmark = pytest.mark.anyio

SUPPLY = "/api/v1/domains/supply"


@pytest.fixture
def http_headers() -> dict[str, str]:
    """`http` sends no credential: each request names its caller."""
    return {}


@pytest.fixture
def supplier_editor(supply: Store, keys: Keys) -> str:
    """An editor whose grant is narrowed to Supplier: Part, Contract ... are invisible to it."""
    return grant_key(supply, "usr_narrow", domain="supply", role="editor", kinds=["Supplier"])


async def _ask(
    http: httpx.AsyncClient, key: str, method: str, path: str, body: Any = None
) -> httpx.Response:
    return await http.request(method, f"{SUPPLY}{path}", json=body, headers=Keys.header(key))


def assert_alike(
    invisible: httpx.Response, unknown: httpx.Response, names: tuple[str, str]
) -> None:
    assert invisible.status_code == unknown.status_code
    assert invisible.text.replace(names[0], "<name>") == unknown.text.replace(names[1], "<name>")


async def test_an_unknown_kind_names_the_closest_kind(http: httpx.AsyncClient, keys: Keys) -> None:
    answer = await _ask(http, keys.admin, "GET", "/kinds/Suplier/records")
    assert assert_problem(answer, 404, "kind-not-found")["detail"] == (
        "Kind 'Suplier' does not exist in Domain 'supply'; did you mean 'Supplier'? "
        "Kinds: Contract, Part, Plant, PurchaseOrder, RiskFlag, Supplier"
    )


async def test_a_narrowed_grant_gets_only_readable_kinds_suggested(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    unknown = await _ask(http, keys.supplier, "GET", "/kinds/Contrac/records")
    invisible = await _ask(http, keys.supplier, "GET", "/kinds/Contract/records")
    assert assert_problem(unknown, 404, "kind-not-found")["detail"] == (
        "Kind 'Contrac' does not exist in Domain 'supply'; Kinds: Supplier"
    )
    assert_alike(invisible, unknown, ("Contract", "Contrac"))


async def test_an_unknown_relation_names_the_closest_readable_one(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    body = {"start": ["Supplier/S-1007"], "path": ["suplies"]}
    answer = await _ask(http, keys.admin, "POST", "/traverse", body)
    assert "did you mean 'supplies' or " in str(assert_problem(answer, 404, "relation-not-found"))
    unknown = await _ask(http, keys.supplier, "POST", "/neighborhood", _hood("suplies"))
    invisible = await _ask(http, keys.supplier, "POST", "/neighborhood", _hood("supplies"))
    detail = assert_problem(unknown, 404, "relation-not-found")["detail"]
    assert detail == "Relation 'suplies' does not exist in Domain 'supply'"  # none it reads
    assert_alike(invisible, unknown, ("supplies", "suplies"))


def _hood(relation: str) -> dict[str, Any]:
    return {"refs": ["Supplier/S-1001"], "depth": 1, "relations": [relation]}


async def test_an_unknown_relation_of_a_record_lists_the_relations_from_its_kind(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    answer = await _ask(http, keys.admin, "GET", "/kinds/Supplier/records/S-1001/links/supplied_by")
    detail = assert_problem(answer, 404, "relation-not-found")["detail"]
    assert str(detail).endswith(
        "(it goes from Part to Supplier); did you mean 'supplies' or 'supplier_orders'? "
        "Relations from Supplier: risk_flags, supplier_contracts, supplier_orders, supplies"
    )


async def test_an_unknown_trait_names_the_closest_readable_trait(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    answer = await _ask(http, keys.admin, "POST", "/query", {"trait": "Locatd"})
    assert "did you mean 'Located'?" in str(assert_problem(answer, 404, "trait-not-found"))


async def test_an_unknown_attribute_names_the_closest_one(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    body = {"kind": "Supplier", "select": ["risk_scor"]}
    answer = await _ask(http, keys.admin, "POST", "/query", body)
    issues = assert_problem(answer, 422, "query-invalid")["issues"]
    assert isinstance(issues, list)
    assert "did you mean 'risk_score'?" in issues[0]["message"]


async def test_an_unknown_operation_names_the_closest_visible_one(
    http: httpx.AsyncClient, keys: Keys, supplier_editor: str
) -> None:
    run = {"parameters": {"key": "S-1001"}, "dry_run": True}
    answer = await _ask(http, keys.admin, "POST", "/operations/update_suplier/execute", run)
    assert "did you mean 'update_supplier'?" in str(
        assert_problem(answer, 404, "operation-not-found")["detail"]
    )
    unknown = await _ask(http, supplier_editor, "POST", "/operations/update_contrac/execute", run)
    invisible = await _ask(
        http, supplier_editor, "POST", "/operations/update_contract/execute", run
    )
    assert assert_problem(unknown, 404, "operation-not-found")["detail"] == (
        "Operation 'update_contrac' does not exist in Domain 'supply'; Operations: update_supplier"
    )
    assert_alike(invisible, unknown, ("update_contract", "update_contrac"))


async def test_an_unknown_lens_names_the_closest_usable_one(
    http: httpx.AsyncClient, keys: Keys, supply: Store
) -> None:
    answer = await _ask(http, keys.admin, "POST", "/search", {"q": "seal", "lens": "suplier_risk"})
    assert "did you mean 'supplier_risk'?" in str(assert_problem(answer, 422, "lens_unknown"))
    plants = grant_key(supply, "usr_plants", domain="supply", role="viewer", kinds=["Plant"])
    for route, body in (("/search", {"q": "x"}), ("/context", {"refs": ["Plant/PL-01"]})):
        unknown = await _ask(http, plants, "POST", route, {**body, "lens": "suplier_risk"})
        invisible = await _ask(http, plants, "POST", route, {**body, "lens": "supplier_risk"})
        assert_problem(unknown, 422, "lens_unknown")
        assert_alike(invisible, unknown, ("supplier_risk", "suplier_risk"))
        assert "supplier_risk" not in unknown.text


async def test_an_unknown_branch_names_only_branches_the_caller_reads(
    http: httpx.AsyncClient, keys: Keys, supply: Store
) -> None:
    supply.create_branch("supply", "agent/alpha", created_by="usr_admin")
    supply.create_branch("supply", "agent-secret", created_by="usr_admin")
    answer = await _ask(http, keys.agent, "GET", "/branches/agent/alpa")
    assert assert_problem(answer, 404, "branch-not-found")["detail"] == (
        "Branch 'agent/alpa' does not exist in Domain 'supply'; did you mean 'agent/alpha'? "
        "branches: agent/alpha, main"
    )
    admin = await _ask(http, keys.admin, "GET", "/kinds/Supplier/records?branch=agent-secre")
    assert "did you mean 'agent-secret'?" in str(assert_problem(admin, 404, "branch-not-found"))


async def test_a_review_with_an_unknown_member_lists_the_members(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    answer = await _ask(
        http, keys.admin, "POST", "/proposals/prp_x/reviews", {"verdict": "approve", "bdy": "ok"}
    )
    issues = assert_problem(answer, 422, "invalid-input")["issues"]
    assert issues == [
        {
            "path": "bdy",
            "message": "unknown member 'bdy'; did you mean 'body'? Use body, verdict",
            "code": "extra_forbidden",
        }
    ]


async def test_a_nested_unknown_member_lists_the_members_there(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    body = {"resolutions": [{"ref": "Supplier/S-1001", "attribute": "x", "resolutoin": "value"}]}
    answer = await _ask(http, keys.admin, "POST", "/branches/main/merge", body)
    issues = assert_problem(answer, 422, "invalid-input")["issues"]
    assert isinstance(issues, list)
    extra = [issue for issue in issues if issue["code"] == "extra_forbidden"]
    assert len(extra) == 1
    assert extra[0]["message"].startswith("unknown member 'resolutoin'; did you mean 'resolution'?")
