"""Lean context packs: import creations in one line, `include_schema` true/"compact"/false, the
schema section without Attributes no Record of the pack holds, on the supply and library Domains."""

from __future__ import annotations

import math
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from packages.keeper.tests.conftest import ROOT
from packages.keeper.tests.routes.reads.test_context import check_tokens, dumps

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import TRIM_STEPS, Settings
from lorebase_store import Store, import_directory

pytestmark = pytest.mark.anyio
LIBRARY = ROOT / "tests" / "data" / "library"
BIG = 32000


async def post(http: httpx.AsyncClient, domain: str, body: dict[str, Any]) -> httpx.Response:
    response = await http.post(f"/api/v1/domains/{domain}/context", json=body)
    assert response.status_code == 200, response.text
    return response


@pytest.fixture
async def library_http(
    library: Store, keeper_settings: Settings
) -> AsyncIterator[httpx.AsyncClient]:
    """An admin's client of a Keeper holding the library Domain."""
    async with _admin(library, keeper_settings, "library") as client:
        yield client


def _admin(store: Store, settings: Settings, domain: str) -> httpx.AsyncClient:
    store.ensure_principal("usr_librarian", principal_type="user")
    secret = store.create_key("usr_librarian").secret
    store.add_grant("usr_librarian", domain=domain, role="admin")
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(settings, store=store)),
        base_url="http://keeper.test",
        headers=Keys.header(secret),
    )


CASES = [
    pytest.param("supply", "Supplier/S-1007", 8, "Import the supply example data", id="supply"),
    pytest.param("library", "Book/B-0004", 5, "Import the library test data", id="library"),
]


@pytest.mark.parametrize(("domain", "ref", "created", "message"), CASES)
async def test_import_creations_are_one_entry_per_revision(
    http: httpx.AsyncClient,
    library_http: httpx.AsyncClient,
    domain: str,
    ref: str,
    created: int,
    message: str,
) -> None:
    client = http if domain == "supply" else library_http
    body = {"refs": [ref], "depth": 1, "budget_tokens": BIG}
    document = (await post(client, domain, body)).json()
    records = len(document["seeds"]) + len(document["neighbors"])
    assert records == created  # every Record of these packs came with the import
    [entry] = document["recent_changes"]
    assert len(entry["revision"]) == 64
    assert {k: v for k, v in entry.items() if k not in ("revision", "at")} == {
        "change": "created",
        "records": created,
        "actor": "usr_loader",
        "origin": "import",
        "message": message,
    }
    check_tokens(document)
    text = (await post(client, domain, {**body, "format": "markdown"})).text
    [line] = [line for line in text.splitlines() if "of these Records" in line]
    assert line == (
        f"- {entry['revision'][:12]} {entry['at']} {created} of these Records created by "
        f"usr_loader (import): {message}"
    )


async def test_other_changes_keep_their_own_line(http: httpx.AsyncClient) -> None:
    """Supplier S-1001: "risk raised" by an Operation stays a change of its own, before the import."""
    body = {"refs": ["Supplier/S-1001"], "depth": 1, "budget_tokens": BIG}
    changes = (await post(http, "supply", body)).json()["recent_changes"]
    assert [change.get("ref") for change in changes][:1] == ["Supplier/S-1001"]
    assert changes[0]["change"] == "modified"
    assert [change["origin"] for change in changes].count("import") == 1


@pytest.mark.parametrize(("domain", "ref", "created", "message"), CASES)
async def test_include_schema_true_compact_false(
    http: httpx.AsyncClient,
    library_http: httpx.AsyncClient,
    domain: str,
    ref: str,
    created: int,
    message: str,
) -> None:
    client = http if domain == "supply" else library_http
    body = {"refs": [ref], "depth": 1, "budget_tokens": BIG}
    full = (await post(client, domain, body)).json()
    explicit = (await post(client, domain, {**body, "include_schema": True})).json()
    assert explicit["schema"] == full["schema"]  # true is the default (the ETag hashes the body)
    for kind in full["schema"]["kinds"]:
        assert kind["description"]  # once per Kind
        assert all(set(attribute) == {"name", "type"} for attribute in kind["attributes"])
    assert all(relation["description"] for relation in full["schema"]["relations"])
    compact = (await post(client, domain, {**body, "include_schema": "compact"})).json()
    assert compact["budget"]["omitted"] == {}
    for lean, described in zip(compact["schema"]["kinds"], full["schema"]["kinds"], strict=True):
        assert lean == {k: v for k, v in described.items() if k != "description"}
    assert [set(r) - {"attributes"} for r in compact["schema"]["relations"]] == [
        {"name", "inverse", "from", "to", "cardinality"}
    ] * len(full["schema"]["relations"])
    check_tokens(compact)
    assert len(dumps(compact["schema"])) < len(dumps(full["schema"]))
    without = (await post(client, domain, {**body, "include_schema": False})).json()
    assert "schema" not in without
    assert without["budget"]["omitted"] == {"schema": "request"}
    text = await post(client, domain, {**body, "include_schema": "compact", "format": "markdown"})
    assert "## Schema" in text.text
    assert not any(kind["description"] in text.text for kind in full["schema"]["kinds"])


async def test_the_depth_1_pack_of_s_1007_is_half_what_it_was(
    http: httpx.AsyncClient, library_http: httpx.AsyncClient
) -> None:
    """7,950 characters of Markdown (3,886 of them schema) before the lean pack, 3,580 for the
    library's Book/B-0004; JSON 11,127 and 5,656 with nothing trimmed."""
    body = {"depth": 1, "format": "markdown"}
    supply = (await post(http, "supply", {**body, "refs": ["Supplier/S-1007"]})).text
    assert len(supply) <= 7950 // 2
    library = (await post(library_http, "library", {**body, "refs": ["Book/B-0004"]})).text
    assert len(library) <= 3580 * 0.6
    json_body = {"refs": ["Supplier/S-1007"], "depth": 1, "budget_tokens": BIG}
    assert len((await post(http, "supply", json_body)).text) <= 11127 * 0.6


async def test_trimming_stays_in_order_on_a_compact_schema(http: httpx.AsyncClient) -> None:
    body = {"refs": ["Supplier/S-1001"], "depth": 2, "include_schema": "compact"}
    full = (await post(http, "supply", {**body, "budget_tokens": BIG})).json()
    half = await post(http, "supply", {**body, "budget_tokens": full["budget"]["used_tokens"] // 2})
    document = half.json()
    steps = [entry["step"] for entry in document["budget"]["trimmed"]]
    assert steps == [step for step in TRIM_STEPS if step in steps]
    assert "schema_descriptions" not in steps  # a compact schema has none to trim
    assert document["budget"]["used_tokens"] <= full["budget"]["used_tokens"] // 2
    check_tokens(document)
    markdown = await post(http, "supply", {**body, "format": "markdown", "budget_tokens": 300})
    lines = markdown.text.splitlines()
    estimated = int(lines[1].split("; ")[1].split()[1])
    blocks = markdown.text.split("\n\n")[1:]
    assert estimated == sum(math.ceil(len(block.rstrip("\n")) / 4.0) for block in blocks)


@pytest.mark.parametrize("value", ["full", "", 0, None, ["compact"]])
async def test_include_schema_takes_true_compact_or_false(
    http: httpx.AsyncClient, value: Any
) -> None:
    body: dict[str, Any] = {"refs": ["Supplier/S-1007"], "include_schema": value}
    response = await http.post("/api/v1/domains/supply/context", json=body)
    if value is None:  # null is the default
        assert response.status_code == 200
        return
    problem = assert_problem(response, 422, "context-request-invalid")
    assert problem["issues"] == [
        {"path": "include_schema", "message": 'expected "compact", true or false', "code": "type"}
    ]


async def test_a_narrowed_caller_sees_only_its_kinds(http: httpx.AsyncClient, keys: Keys) -> None:
    response = await http.post(
        "/api/v1/domains/supply/context",
        json={"refs": ["Supplier/S-1007"], "include_schema": "compact"},
        headers=Keys.header(keys.supplier),
    )
    document = response.json()
    assert [kind["name"] for kind in document["schema"]["kinds"]] == ["Supplier"]
    assert document["schema"]["relations"] == []
    assert document["budget"]["omitted"] == {"recent_changes": "history-forbidden"}


def _without(directory: Path, tmp_path: Path, csv: str, column: str, key: str) -> Path:
    """A copy of an example whose Record `key` in `csv` holds no value of `column`."""
    copy = tmp_path / directory.name
    shutil.copytree(directory, copy)
    path = copy / "data" / csv
    lines = path.read_text().splitlines()
    index = lines[0].split(",").index(column)
    for number, line in enumerate(lines):
        cells = line.split(",")
        if cells[0] == key:
            cells[index] = ""
            lines[number] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    return copy


@pytest.mark.parametrize(
    ("directory", "domain", "ref", "csv", "column", "key", "kind"),
    [
        pytest.param(
            ROOT / "examples" / "supply",
            "supply",
            "Supplier/S-1007",
            "Contract.csv",
            "end_date",
            "C-3007",
            "Contract",
            id="supply",
        ),
        pytest.param(
            LIBRARY,
            "library",
            "Book/B-0004",
            "Publisher.csv",
            "country",
            "PB-01",
            "Publisher",
            id="library",
        ),
    ],
)
async def test_the_schema_leaves_out_attributes_no_record_holds(
    store: Store,
    keeper_settings: Settings,
    tmp_path: Path,
    directory: Path,
    domain: str,
    ref: str,
    csv: str,
    column: str,
    key: str,
    kind: str,
) -> None:
    import_directory(store, _without(directory, tmp_path, csv, column, key))
    async with _admin(store, keeper_settings, domain) as client:
        document = (await post(client, domain, {"refs": [ref], "budget_tokens": BIG})).json()
    [found] = [entry for entry in document["schema"]["kinds"] if entry["name"] == kind]
    assert column not in [attribute["name"] for attribute in found["attributes"]]
    assert found["attributes"]  # the others stay
    [record] = [n for n in document["neighbors"] if n["ref"] == f"{kind}/{key}"]
    assert column not in record["values"]
