"""GET /schema?format=compact|markdown and kinds=: a schema that fits a small window, on the supply
example and the library Domain, authorized and cached like the JSON document."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from packages.keeper.tests.reads.test_context_pack import _admin

from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store

pytestmark = pytest.mark.anyio
SUPPLY = "/api/v1/domains/supply/schema"
LIBRARY = "/api/v1/domains/library/schema"
WINDOW = 3000
"""What a small model reads of a prompt's schema (issue: the first 3,000 characters of the JSON
never reach the Relations)."""


@pytest.fixture
async def library_http(
    library: Store, keeper_settings: Settings
) -> AsyncIterator[httpx.AsyncClient]:
    async with _admin(library, keeper_settings, "library") as client:
        yield client


async def get(http: httpx.AsyncClient, url: str, **params: str) -> httpx.Response:
    response = await http.get(url, params=params)
    assert response.status_code == 200, response.text
    return response


async def test_compact_lists_relations_first_with_both_names(http: httpx.AsyncClient) -> None:
    """ "Which plants stock parts that Polish suppliers supply?" needs stocked_at/stocks and
    supplied_by/supplies: the compact form gives both names and ends before any Kind."""
    full = (await get(http, SUPPLY)).json()
    response = await get(http, SUPPLY, format="compact")
    assert response.headers["content-type"] == "application/json"
    compact = response.json()
    assert list(compact) == [
        "domain",
        "branch",
        "revision",
        "digest",
        "title",
        "relations",
        "kinds",
        "lenses",
        "operations",
    ]
    assert compact["revision"] == full["revision"] == response.headers["Lorebase-Revision"]
    assert {
        "name": "stocked_at",
        "inverse": "stocks",
        "from": "Part",
        "to": "Plant",
        "cardinality": "many_to_many",
    } in compact["relations"]
    supplied_by = next(r for r in compact["relations"] if r["name"] == "supplied_by")
    assert supplied_by["attributes"] == {"is_primary": "boolean", "lead_time_days": "integer"}
    assert [r["name"] for r in compact["relations"]] == [r["name"] for r in full["relations"]]
    assert [k["name"] for k in compact["kinds"]] == [k["name"] for k in full["kinds"]]
    supplier = next(k for k in compact["kinds"] if k["name"] == "Supplier")
    assert supplier["key"] == ["supplier_code"]
    assert supplier["title"] == "legal_name"
    assert supplier["attributes"]["tier"] == "integer"
    assert supplier["attributes"]["status"] == "enum(active|suspended|blocked)"
    assert compact["lenses"] == ["supplier_risk"]
    assert compact["operations"] == [operation["name"] for operation in full["operations"]]
    assert len(response.text) < WINDOW < len((await get(http, SUPPLY)).text)


async def test_markdown_fits_the_window_relations_first(http: httpx.AsyncClient) -> None:
    response = await get(http, SUPPLY, format="markdown")
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    text = response.text
    assert len(text) <= WINDOW
    lines = text.splitlines()
    assert lines[0] == "# Schema: supply/main"
    assert lines[1].startswith(f"revision {response.headers['Lorebase-Revision']}")
    assert lines.index("## Kinds") > lines.index(
        "- stocked_at: Part -> Plant; inverse stocks; many_to_many"
    )
    assert (
        "- supplied_by: Part -> Supplier; inverse supplies; many_to_many "
        "[is_primary: boolean, lead_time_days: integer]"
    ) in lines
    start = lines.index("### Supplier (key supplier_code; title legal_name)")
    assert lines[start + 1 : start + 3] == ["- supplier_code: string (key)", "- legal_name: string"]
    assert lines[-5:] == [
        "## Lenses",
        "supplier_risk",
        "",
        "## Operations",
        "flag_supplier_risk, update_contract, update_supplier",
    ]
    assert text == (await get(http, SUPPLY, format="markdown")).text  # same Revision, same bytes


async def test_the_library_gets_the_same_forms(library_http: httpx.AsyncClient) -> None:
    compact = (await get(library_http, LIBRARY, format="compact")).json()
    assert {
        "name": "written_by",
        "inverse": "wrote",
        "from": "Book",
        "to": "Author",
        "cardinality": "many_to_many",
    } in compact["relations"]
    book = next(k for k in compact["kinds"] if k["name"] == "Book")
    assert book["attributes"]["genre"] == "enum(novel|poetry|history|science|children)"
    text = (await get(library_http, LIBRARY, format="markdown")).text
    assert "- written_by: Book -> Author; inverse wrote; many_to_many" in text
    assert "- book_id: string (key)" in text
    assert text.index("## Relations") < text.index("## Kinds")
    assert len(text) <= WINDOW


@pytest.mark.parametrize("format", ["json", "compact", "markdown"])
async def test_kinds_narrows_to_them_and_the_relations_between(
    http: httpx.AsyncClient, format: str
) -> None:
    response = await get(http, SUPPLY, format=format, kinds="Supplier, Part")
    if format == "markdown":
        text = response.text
        assert "### Part (key" in text
        assert "### Supplier (key" in text
        assert "### Contract" not in text
        assert "with_supplier" not in text
        assert "- supplied_by: Part -> Supplier" in text
        assert "update_contract" not in text
        assert "update_supplier" in text
        return
    document = response.json()
    assert [kind["name"] for kind in document["kinds"]] == [
        "Part",
        "Supplier",
    ]  # as the JSON lists them
    assert [relation["name"] for relation in document["relations"]] == ["supplied_by"]
    operations = [
        operation if isinstance(operation, str) else operation["name"]
        for operation in document["operations"]
    ]
    assert operations == ["flag_supplier_risk", "update_supplier"]  # those naming the Kinds
    lenses = [lens if isinstance(lens, str) else lens["name"] for lens in document["lenses"]]
    assert lenses == ["supplier_risk"]


async def test_kinds_narrows_the_library(library_http: httpx.AsyncClient) -> None:
    document = (await get(library_http, LIBRARY, format="compact", kinds="Loan,Member")).json()
    assert [kind["name"] for kind in document["kinds"]] == ["Loan", "Member"]
    assert [relation["name"] for relation in document["relations"]] == ["borrowed_by"]
    assert document["lenses"] == ["book_shelf"]  # it names Loan


async def test_json_stays_as_it_is(http: httpx.AsyncClient) -> None:
    plain = await get(http, SUPPLY)
    explicit = await get(http, SUPPLY, format="json")
    assert plain.content == explicit.content
    assert {"traits", "search", "examples"} <= set(plain.json())


async def test_etag_and_304_per_format(http: httpx.AsyncClient) -> None:
    etags = set()
    for format in ("json", "compact", "markdown"):
        response = await get(http, SUPPLY, format=format)
        etags.add(response.headers["ETag"])
        again = await http.get(
            SUPPLY, params={"format": format}, headers={"If-None-Match": response.headers["ETag"]}
        )
        assert again.status_code == 304
    assert len(etags) == 3


async def test_a_narrowed_caller_sees_its_kinds_only(http: httpx.AsyncClient, keys: Keys) -> None:
    headers = Keys.header(keys.supplier)
    compact = (await http.get(SUPPLY, params={"format": "compact"}, headers=headers)).json()
    assert [kind["name"] for kind in compact["kinds"]] == ["Supplier"]
    assert compact["relations"] == []  # every Relation touches an invisible Kind
    text = (await http.get(SUPPLY, params={"format": "markdown"}, headers=headers)).text
    assert "Part" not in text
    assert "supplied_by" not in text
    hidden = await http.get(SUPPLY, params={"format": "compact", "kinds": "Part"}, headers=headers)
    assert_problem(hidden, 404, "kind-not-found")


async def test_attributes_are_named_as_the_json_names_them(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    headers = Keys.header(keys.viewer)  # no clearances: sensitive values are masked elsewhere
    full = (await http.get(SUPPLY, headers=headers)).json()
    compact = (await http.get(SUPPLY, params={"format": "compact"}, headers=headers)).json()
    for entry, kind in zip(compact["kinds"], full["kinds"], strict=True):
        assert list(entry["attributes"]) == [attribute["name"] for attribute in kind["attributes"]]


@pytest.mark.parametrize(
    ("params", "status", "code"),
    [
        pytest.param({"format": "yaml"}, 422, "invalid-input", id="unknown-format"),
        pytest.param({"kinds": ""}, 422, "invalid-input", id="empty-kinds"),
        pytest.param({"kinds": " , "}, 422, "invalid-input", id="blank-kinds"),
        pytest.param({"kinds": "Supplier,Vendor"}, 404, "kind-not-found", id="unknown-kind"),
    ],
)
async def test_bad_input(
    http: httpx.AsyncClient, params: dict[str, str], status: int, code: str
) -> None:
    problem = assert_problem(await http.get(SUPPLY, params=params), status, code)
    if "kinds" in params and status == 422:
        assert problem["issues"] == [
            {
                "path": "kinds",
                "message": "expected one or more comma-separated Kind names",
                "code": "missing",
            }
        ]
