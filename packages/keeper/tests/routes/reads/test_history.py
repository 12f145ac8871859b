"""GET .../history?attributes=: only the changes of some Attributes, with only their values.

Written from the supply example's questions (S-1001's risk score went from 72 to 90 in "Raise the
risk of S-1001"; C-3013 was activated after its extension, examples/supply/README.md) and on the
library test Domain (tests/data/library), where a test changes a Book's pages.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx
import pytest

from lorebase_core.changes import UpsertRecord
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_store import Store
from lorebase_store.testing import commit_changes

SUPPLY = "/api/v1/domains/supply"
S_1001 = f"{SUPPLY}/kinds/Supplier/records/S-1001/history"
C_3013 = f"{SUPPLY}/kinds/Contract/records/C-3013/history"
B_0003 = "/api/v1/domains/library/kinds/Book/records/B-0003/history"


async def changes(http: httpx.AsyncClient, path: str, **headers: str) -> list[dict[str, Any]]:
    response = await http.get(path, headers=headers)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["changes"]
    return found


@pytest.mark.anyio
async def test_risk_score_of_s_1001_is_its_creation_and_the_raise_from_72_to_90(
    http: httpx.AsyncClient,
) -> None:
    raised, created = await changes(http, f"{S_1001}?attributes=risk_score&values=true")
    assert (raised["message"], raised["change"]) == ("Raise the risk of S-1001", "updated")
    assert raised["attributes"] == ["risk_score"]
    assert (raised["before"], raised["after"]) == ({"risk_score": "72"}, {"risk_score": "90"})
    # the creation set risk_score, so it is a change of risk_score
    assert (created["change"], created["attributes"]) == ("created", ["risk_score"])
    assert (created["before"], created["after"]) == (None, {"risk_score": "72"})


@pytest.mark.anyio
async def test_an_attribute_no_change_touched_after_creation_lists_the_creation_only(
    http: httpx.AsyncClient,
) -> None:
    [created] = await changes(http, f"{S_1001}?attributes=legal_name")
    assert (created["change"], created["attributes"]) == ("created", ["legal_name"])
    assert "before" not in created


@pytest.mark.anyio
async def test_status_of_c_3013_skips_the_extension(http: httpx.AsyncClient) -> None:
    activated, created = await changes(http, f"{C_3013}?attributes=status&values=true")
    assert activated["message"] == "Activate C-3013 after countersignature"
    assert (activated["before"], activated["after"]) == ({"status": "draft"}, {"status": "active"})
    assert created["change"] == "created"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "query",
    [
        pytest.param("attributes=status,value", id="comma-separated"),
        pytest.param("attributes=status&attributes=value", id="repeated"),
        pytest.param("attributes=value,%20status,&attributes=status", id="blanks-and-twice"),
    ],
)
async def test_several_attributes_by_commas_or_repeated(
    http: httpx.AsyncClient, query: str
) -> None:
    found = await changes(http, f"{C_3013}?{query}&values=true")
    assert [change["attributes"] for change in found] == [
        ["status"],
        ["value"],
        ["status", "value"],
    ]
    # the values are those of the Attributes asked for, changed or not
    assert found[1]["after"] == {"status": "draft", "value": "240000.00"}


@pytest.mark.anyio
@pytest.mark.parametrize("limit", [1, 2])
async def test_paging_keeps_the_filter(http: httpx.AsyncClient, limit: int) -> None:
    path = f"{C_3013}?attributes=status,value&limit={limit}"
    everything = await changes(http, f"{C_3013}?attributes=status,value")
    pages: list[list[dict[str, Any]]] = []
    cursor = None
    while True:
        response = await http.get(path + (f"&cursor={quote(cursor)}" if cursor else ""))
        assert response.status_code == 200, response.text
        pages.append(response.json()["changes"])
        cursor = response.json()["next_cursor"]
        if cursor is None:
            break
    assert [change for page in pages for change in page] == everything
    assert len(pages) == -(-3 // limit)


@pytest.mark.anyio
async def test_a_cursor_of_another_filter_is_refused(http: httpx.AsyncClient) -> None:
    first = (await http.get(f"{C_3013}?attributes=status&limit=1")).json()
    for other in ("", "&attributes=value"):
        response = await http.get(f"{C_3013}?limit=1&cursor={first['next_cursor']}{other}")
        problem = assert_problem(response, 400, "bad-cursor")
        assert "other Attributes" in str(problem["detail"])


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("query", "message"),
    [
        pytest.param("attributes=risk", "has no Attribute 'risk'; did you mean", id="unknown"),
        pytest.param("attributes=,", "expected Attribute names of Supplier", id="empty"),
    ],
)
async def test_an_unknown_attribute_is_422_with_the_closest_names(
    http: httpx.AsyncClient, query: str, message: str
) -> None:
    problem = assert_problem(await http.get(f"{S_1001}?{query}"), 422, "invalid-input")
    [issue] = problem["issues"]  # type: ignore[misc]
    assert issue["path"] == "attributes"
    assert message in issue["message"]


@pytest.mark.anyio
async def test_an_attribute_whose_values_the_caller_may_not_read_is_403(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    viewer = Keys.header(keys.viewer)
    path = f"{S_1001}?attributes=contact_email"
    response = await http.get(path, headers=viewer)
    problem = assert_problem(response, 403, "attribute-forbidden")
    assert "contact_email" in str(problem["detail"])
    [created] = await changes(http, path)  # the admin reads it
    assert created["attributes"] == ["contact_email"]
    [raised, _] = await changes(http, f"{S_1001}?attributes=risk_score&values=true", **viewer)
    assert raised["after"] == {"risk_score": "90"}  # no *** of Attributes it did not ask for


@pytest.mark.anyio
async def test_pages_of_a_book_on_the_library_domain(
    http: httpx.AsyncClient, library: Store
) -> None:
    library.add_grant("usr_admin", domain="library", role="admin")
    reprinted = commit_changes(
        library,
        [UpsertRecord("Book", "B-0003", {"pages": 520})],
        domain="library",
        message="The second printing has an index",
    )
    commit_changes(
        library,
        [UpsertRecord("Book", "B-0003", {"price": "31.00"})],
        domain="library",
        message="New replacement price",
    )
    [changed, created] = await changes(http, f"{B_0003}?attributes=pages&values=true")
    assert changed["revision"] == reprinted.id
    assert changed["after"] == {"pages": "520"}
    assert created["change"] == "created"
    assert len(await changes(http, B_0003)) == 3
