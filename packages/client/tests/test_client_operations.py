"""Discovering Operations: `operations()` and `operation()` of both clients, requests built without
a Keeper, then against the session's Keeper, and `lorebase op list` / `lorebase op show`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner, Result

from lorebase_client import AsyncLorebaseClient, LorebaseClient, response_of, routes
from lorebase_client.cli import main
from lorebase_core.errors import NotFound

if TYPE_CHECKING:
    from conftest import LiveKeeper, ProblemCheck

DOMAIN_PATH = "/api/v1/domains/supply"
SUPPLY_OPERATIONS = ["flag_supplier_risk", "update_contract", "update_supplier"]


# -- the requests --------------------------------------------------------------------------------


def test_the_requests_are_reads_with_branch_at_and_etag() -> None:
    listed = routes.operations("supply", branch="work", at="v1", etag='"e"')
    assert (listed.method, listed.path) == ("GET", f"{DOMAIN_PATH}/operations")
    assert (listed.params, listed.etag) == ({"branch": "work", "at": "v1"}, '"e"')
    one = routes.operation("supply", "update_supplier", branch=None, at=None, etag=None)
    assert (one.path, one.params) == (f"{DOMAIN_PATH}/operations/update_supplier", {})


def test_an_operation_name_is_one_encoded_segment() -> None:
    one = routes.operation("supply", "a/b c", branch=None, at=None, etag=None)
    assert one.path == f"{DOMAIN_PATH}/operations/a%2Fb%20c"


# -- against Keeper --------------------------------------------------------------------------------


def test_operations_lists_the_supply_operations_with_their_parameters(
    admin: LorebaseClient, keeper: LiveKeeper
) -> None:
    answer = admin.operations("supply")
    assert answer.revision == keeper.supply_head
    assert answer["branch"] == "main"
    names = sorted(entry["name"] for entry in answer["operations"])
    assert names == SUPPLY_OPERATIONS
    assert admin.schema("supply")["operations"] == answer["operations"]
    flag = admin.operation("supply", "flag_supplier_risk")
    assert [param["name"] for param in flag["parameters"]] == ["supplier", "severity", "reason"]
    assert flag["review"]["policy"] == "severity == 'critical'"
    assert flag["execute"]["allowed"] is True


def test_a_narrowed_caller_sees_only_the_operations_on_its_kinds(
    viewer: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    listed = viewer.operations("supply")["operations"]
    assert [entry["name"] for entry in listed] == ["update_supplier"]
    assert listed[0]["execute"] == {**listed[0]["execute"], "allowed": False}
    with pytest.raises(NotFound) as caught:
        viewer.operation("supply", "flag_supplier_risk")  # it writes RiskFlag
    assert_problem(response_of(caught.value), 404, "operation-not-found")


def test_conditional_reads_answer_not_modified(admin: LorebaseClient) -> None:
    for read in (
        lambda etag: admin.operations("supply", etag=etag),
        lambda etag: admin.operation("supply", "update_supplier", etag=etag),
    ):
        first = read(None)
        assert first.etag is not None
        assert read(first.etag).not_modified


def test_an_unknown_operation_is_not_found(
    admin: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    with pytest.raises(NotFound) as caught:
        admin.operation("supply", "no_such_operation")
    assert_problem(response_of(caught.value), 404, "operation-not-found")


def test_at_reads_an_earlier_revision(admin: LorebaseClient, keeper: LiveKeeper) -> None:
    answer = admin.operation("supply", "update_supplier", at=keeper.supply_import)
    assert answer.revision == keeper.supply_import


@pytest.mark.anyio
async def test_the_async_client_discovers_them_too(
    async_admin: AsyncLorebaseClient, admin: LorebaseClient
) -> None:
    listed = await async_admin.operations("supply")
    assert listed["operations"] == admin.operations("supply")["operations"]
    one = await async_admin.operation("supply", "update_contract")
    assert one["kinds"] == ["Contract"]
    assert (await async_admin.operation("supply", "update_contract", etag=one.etag)).not_modified
    with pytest.raises(NotFound):
        await async_admin.operation("supply", "no_such_operation")


# -- the CLI ----------------------------------------------------------------------------------------


def _run(args: list[str], keeper: LiveKeeper) -> Result:
    env = {"LOREBASE_URL": keeper.url, "LOREBASE_API_KEY": keeper.admin_key}
    return CliRunner().invoke(main, [*args, "--domain", "supply"], env=env)


def _json(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert isinstance(document, dict)
    return document


def test_op_list_and_op_show(keeper: LiveKeeper) -> None:
    listed = _json(_run(["op", "list"], keeper))
    assert sorted(entry["name"] for entry in listed["operations"]) == SUPPLY_OPERATIONS
    shown = _json(_run(["op", "show", "update_supplier", "--at", keeper.supply_import], keeper))
    assert (shown["name"], shown["revision"]) == ("update_supplier", keeper.supply_import)
    assert shown["parameters"][0]["refers_to"] == ["Supplier"]


def test_op_show_of_an_unknown_operation_fails(keeper: LiveKeeper) -> None:
    result = _run(["op", "show", "no_such_operation"], keeper)
    assert result.exit_code == 1
    assert "[operation-not-found]" in result.stderr
