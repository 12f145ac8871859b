"""What every answer promises: its Revision, ETags and 304s, the same bytes, problem documents.

design.md, HTTP conventions: every read names its Revision in the body and the Lorebase-Revision
header, cacheable answers carry an ETag and honour If-None-Match, the same request at the same
Revision returns the same bytes, and no bad input answers 500.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from packages.keeper.tests.conftest import client_of

from lorebase_core.changes import UpsertRecord
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store
from lorebase_store.testing import commit_changes

SUPPLY = "/api/v1/domains/supply"
S_1001 = f"{SUPPLY}/kinds/Supplier/records/S-1001"
ETAG = re.compile(r'^"(?P<revision>[0-9a-f]{64})\.[0-9a-f]{16}"$')
PROBLEM = "application/problem+json"


def revision_ids(store: Store) -> dict[str, str]:
    log = store.log("supply")
    return {"imported": log[-1].id, "head": log[0].id}


READS = [
    pytest.param("/schema", id="schema"),
    pytest.param("/kinds/Supplier/records", id="records"),
    pytest.param("/kinds/Supplier/records?limit=5", id="records-page"),
    pytest.param("/kinds/Supplier/records/S-1001", id="record"),
    pytest.param("/kinds/Supplier/records/S-1001?links=true&lineage=true", id="record-links"),
    pytest.param("/kinds/Part/records/P-10028", id="part"),
    pytest.param("/kinds/Supplier/records/S-1001/links/supplies", id="links"),
    pytest.param("/kinds/Supplier/records/S-1001/history?values=true", id="history"),
    pytest.param("/kinds/Supplier/records/S-1001/lineage", id="lineage"),
    pytest.param("/kinds/Supplier/records/S-1001/explain", id="explain"),
    pytest.param("/kinds/Supplier/records/S-1001?at={imported}", id="record-at"),
    pytest.param("/diff?from={imported}&to={head}", id="diff"),
]


def read_path(store: Store, path: str) -> str:
    return SUPPLY + path.format(**revision_ids(store))


# -- the Revision and the ETag ---------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("path", READS)
async def test_every_read_names_its_revision_in_body_header_and_etag(
    http: httpx.AsyncClient, supply: Store, path: str
) -> None:
    response = await http.get(read_path(supply, path))
    assert response.status_code == 200, response.text
    revision = response.json()["revision"]
    assert response.headers["Lorebase-Revision"] == revision
    match = ETAG.match(response.headers["ETag"])
    assert match is not None, response.headers["ETag"]
    assert match["revision"] == revision


@pytest.mark.anyio
async def test_explain_markdown_names_its_revision_in_header_etag_and_text(
    http: httpx.AsyncClient, supply: Store
) -> None:
    head = revision_ids(supply)["head"]
    response = await http.get(f"{S_1001}/explain?format=markdown")
    assert response.headers["Lorebase-Revision"] == head
    assert response.headers["ETag"].startswith(f'"{head}.')
    assert f"at revision {head};" in response.text


@pytest.mark.anyio
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/branches/main", id="branch"),
        pytest.param("/tags/v1", id="tag"),
    ],
)
async def test_branch_and_tag_reads_name_their_revision_in_the_body(
    http: httpx.AsyncClient, supply: Store, path: str
) -> None:
    supply.create_tag("supply", "v1", revision_ids(supply)["imported"], created_by="usr_tester")
    response = await http.get(SUPPLY + path)
    assert response.status_code == 200
    document = response.json()
    assert "revision" in document
    assert document["revision"] == response.headers["Lorebase-Revision"]


# -- If-None-Match ---------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("path", READS)
async def test_if_none_match_with_the_etag_is_an_empty_304(
    http: httpx.AsyncClient, supply: Store, path: str
) -> None:
    first = await http.get(read_path(supply, path))
    again = await http.get(
        read_path(supply, path), headers={"If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["ETag"] == first.headers["ETag"]
    assert again.headers["Lorebase-Revision"] == first.headers["Lorebase-Revision"]


@pytest.mark.anyio
async def test_if_none_match_on_explain_markdown_is_304(http: httpx.AsyncClient) -> None:
    first = await http.get(f"{S_1001}/explain?format=markdown")
    again = await http.get(
        f"{S_1001}/explain?format=markdown", headers={"If-None-Match": first.headers["ETag"]}
    )
    assert (again.status_code, again.content) == (304, b"")


@pytest.mark.anyio
@pytest.mark.parametrize(
    "if_none_match",
    [
        pytest.param("*", id="star"),
        pytest.param('"other.0000000000000000", *', id="list-with-star"),
        pytest.param('"other.0000000000000000", {etag}', id="list-with-etag"),
        pytest.param("{etag},{etag}", id="twice-without-space"),
        pytest.param("W/{etag}", id="weak"),
    ],
)
async def test_if_none_match_lists_and_star_are_304(
    http: httpx.AsyncClient, if_none_match: str
) -> None:
    etag = (await http.get(S_1001)).headers["ETag"]
    response = await http.get(S_1001, headers={"If-None-Match": if_none_match.format(etag=etag)})
    assert response.status_code == 304
    assert response.headers["ETag"] == etag


@pytest.mark.anyio
@pytest.mark.parametrize(
    "if_none_match",
    [
        pytest.param('"nothing.0000000000000000"', id="other"),
        pytest.param("", id="empty"),
        pytest.param("{other}", id="etag-of-another-read"),
    ],
)
async def test_if_none_match_without_the_etag_is_200(
    http: httpx.AsyncClient, if_none_match: str
) -> None:
    other = (await http.get(f"{SUPPLY}/kinds/Supplier/records/S-1002")).headers["ETag"]
    response = await http.get(S_1001, headers={"If-None-Match": if_none_match.format(other=other)})
    assert response.status_code == 200
    assert response.json()["key"] == "S-1001"


@pytest.mark.anyio
async def test_an_error_answer_is_never_a_304(http: httpx.AsyncClient) -> None:
    response = await http.get(
        f"{SUPPLY}/kinds/Supplier/records/S-9999", headers={"If-None-Match": "*"}
    )
    assert_problem(response, 404, "record-not-found")


# -- the same bytes --------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("path", READS)
async def test_the_same_request_twice_answers_the_same_bytes(
    http: httpx.AsyncClient, supply: Store, path: str
) -> None:
    first = await http.get(read_path(supply, path))
    second = await http.get(read_path(supply, path))
    assert first.content == second.content
    assert first.headers["ETag"] == second.headers["ETag"]


@pytest.mark.anyio
@pytest.mark.parametrize("path", READS)
async def test_two_keepers_over_one_database_answer_the_same_bytes(
    http: httpx.AsyncClient, keeper_settings: Settings, supply: Store, keys: Keys, path: str
) -> None:
    """A second process has nothing cached: the bytes come from the data, not the cache."""
    first = await http.get(read_path(supply, path))
    async with client_of(
        create_app(keeper_settings, store=supply), Keys.header(keys.admin)
    ) as other:
        second = await other.get(read_path(supply, path))
    assert first.content == second.content
    assert first.headers["ETag"] == second.headers["ETag"]


@pytest.mark.anyio
@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/kinds/Supplier/records/S-1001", id="record"),
        pytest.param("/kinds/Supplier/records?limit=3", id="records"),
        pytest.param("/kinds/Supplier/records/S-1001/history?values=true", id="history"),
        pytest.param("/kinds/Supplier/records/S-1001/explain", id="explain"),
        pytest.param("/kinds/Supplier/records/S-1001/explain?format=markdown", id="markdown"),
        pytest.param("/diff?from={imported}&to={head}", id="diff"),
    ],
)
async def test_callers_with_different_scopes_get_different_etags_and_bodies(
    keeper: FastAPI, keys: Keys, supply: Store, path: str
) -> None:
    async with client_of(keeper, Keys.header(keys.admin)) as admin:
        unmasked = await admin.get(read_path(supply, path))
    async with client_of(keeper, Keys.header(keys.viewer)) as viewer:
        masked = await viewer.get(read_path(supply, path))
    assert unmasked.headers["ETag"] != masked.headers["ETag"]
    assert unmasked.content != masked.content
    assert b"PL7792438105" in unmasked.content
    assert b"PL7792438105" not in masked.content
    async with client_of(keeper, Keys.header(keys.viewer)) as viewer:
        replay = await viewer.get(
            read_path(supply, path), headers={"If-None-Match": unmasked.headers["ETag"]}
        )
    assert replay.status_code == 200
    assert replay.content == masked.content


@pytest.mark.anyio
async def test_callers_with_the_same_scope_share_the_etag(
    keeper: FastAPI, keys: Keys, supply: Store
) -> None:
    supply.ensure_principal("usr_viewer2")
    other = supply.create_key("usr_viewer2").secret
    supply.add_grant("usr_viewer2", domain="supply", role="viewer")
    async with client_of(keeper, Keys.header(keys.viewer)) as viewer:
        first = await viewer.get(S_1001)
    async with client_of(keeper, Keys.header(other)) as viewer2:
        second = await viewer2.get(S_1001)
    assert first.headers["ETag"] == second.headers["ETag"]
    assert first.content == second.content


@pytest.mark.anyio
async def test_a_narrowed_caller_gets_its_own_schema_etag(keeper: FastAPI, keys: Keys) -> None:
    async with client_of(keeper, Keys.header(keys.admin)) as admin:
        whole = await admin.get(f"{SUPPLY}/schema")
    async with client_of(keeper, Keys.header(keys.supplier)) as supplier:
        narrowed = await supplier.get(f"{SUPPLY}/schema")
        replay = await supplier.get(
            f"{SUPPLY}/schema", headers={"If-None-Match": whole.headers["ETag"]}
        )
    assert whole.headers["ETag"] != narrowed.headers["ETag"]
    assert replay.status_code == 200
    assert [kind["name"] for kind in replay.json()["kinds"]] == ["Supplier"]


# -- a commit moves every ETag -----------------------------------------------------------------------


def lower_the_risk(store: Store) -> str:
    made = commit_changes(
        store,
        [UpsertRecord("Supplier", "S-1001", {"risk_score": 75})],
        message="Lower the risk after the audit",
    )
    return made.id


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("path", "value"),
    [
        pytest.param("/kinds/Supplier/records/S-1001", lambda d: d["values"], id="record"),
        pytest.param(
            "/kinds/Supplier/records?limit=1", lambda d: d["records"][0]["values"], id="records"
        ),
        pytest.param(
            "/kinds/Supplier/records/S-1001/explain",
            lambda d: {a["name"]: a["value"] for a in d["attributes"]},
            id="explain",
        ),
        pytest.param(
            "/kinds/Supplier/records/S-1001/history?values=true",
            lambda d: d["changes"][0]["after"],
            id="history",
        ),
    ],
)
async def test_after_a_commit_the_old_etag_answers_the_new_revision(
    http: httpx.AsyncClient,
    supply: Store,
    path: str,
    value: Callable[[dict[str, Any]], dict[str, Any]],
) -> None:
    before = await http.get(SUPPLY + path)
    assert value(before.json())["risk_score"] == "90"
    made = lower_the_risk(supply)
    after = await http.get(SUPPLY + path, headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200
    assert after.json()["revision"] == made
    assert after.headers["Lorebase-Revision"] == made
    assert after.headers["ETag"] != before.headers["ETag"]
    assert value(after.json())["risk_score"] == "75"


@pytest.mark.anyio
async def test_a_read_at_a_fixed_revision_keeps_its_etag_after_a_commit(
    http: httpx.AsyncClient, supply: Store
) -> None:
    head = revision_ids(supply)["head"]
    before = await http.get(f"{S_1001}?at={head}")
    lower_the_risk(supply)
    after = await http.get(f"{S_1001}?at={head}", headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 304
    assert after.headers["Lorebase-Revision"] == head


@pytest.mark.anyio
async def test_a_branch_read_follows_its_own_head(http: httpx.AsyncClient, supply: Store) -> None:
    await http.post(f"{SUPPLY}/branches", json={"name": "quiet"})
    before = await http.get(f"{S_1001}?branch=quiet")
    lower_the_risk(supply)  # on main: the branch does not move
    after = await http.get(
        f"{S_1001}?branch=quiet", headers={"If-None-Match": before.headers["ETag"]}
    )
    assert after.status_code == 304


# -- request bodies --------------------------------------------------------------------------------

BODY_LIMIT = 1024


@pytest.fixture
def small_keeper(supply: Store) -> FastAPI:
    settings = Settings(
        keeper={
            "max_body_bytes": BODY_LIMIT,
            "auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}},
        }
    )
    return create_app(settings, store=supply)


def oversized() -> bytes:
    return json.dumps({"name": "x" * (2 * BODY_LIMIT)}).encode()


@pytest.mark.anyio
async def test_a_body_over_max_body_bytes_is_413(small_keeper: FastAPI, keys: Keys) -> None:
    async with client_of(small_keeper, Keys.header(keys.admin)) as http:
        response = await http.post(
            f"{SUPPLY}/branches",
            content=oversized(),
            headers={"Content-Type": "application/json"},
        )
    document = assert_problem(response, 413, "body-too-large")
    assert str(BODY_LIMIT) in str(document["detail"])


@pytest.mark.anyio
async def test_a_body_at_the_limit_is_served(small_keeper: FastAPI, keys: Keys) -> None:
    body = json.dumps({"name": "fits"}).encode()
    body += b" " * (BODY_LIMIT - len(body))
    async with client_of(small_keeper, Keys.header(keys.admin)) as http:
        response = await http.post(
            f"{SUPPLY}/branches", content=body, headers={"Content-Type": "application/json"}
        )
    assert response.status_code == 201, response.text


@pytest.mark.anyio
async def test_a_streamed_body_over_max_body_bytes_is_413(
    small_keeper: FastAPI, keys: Keys
) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        body = oversized()
        for start in range(0, len(body), 256):
            yield body[start : start + 256]

    async with client_of(small_keeper, Keys.header(keys.admin)) as http:
        response = await http.post(
            f"{SUPPLY}/branches", content=chunks(), headers={"Content-Type": "application/json"}
        )
    assert "content-length" not in response.request.headers
    assert_problem(response, 413, "body-too-large")


@pytest.mark.anyio
async def test_a_streamed_body_under_the_limit_is_served(small_keeper: FastAPI, keys: Keys) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"name": '
        yield b'"streamed"}'

    async with client_of(small_keeper, Keys.header(keys.admin)) as http:
        response = await http.post(
            f"{SUPPLY}/branches", content=chunks(), headers={"Content-Type": "application/json"}
        )
    assert response.status_code == 201, response.text


@pytest.mark.anyio
@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"{", id="truncated"),
        pytest.param(b"not json", id="not-json"),
        pytest.param(b'{"name": "x",}', id="trailing-comma"),
        pytest.param(b"\xff\xfe\x00", id="not-utf8"),
        pytest.param(b"", id="empty"),
        pytest.param(b"[]", id="list"),
        pytest.param(b"null", id="null"),
        pytest.param(b'"feature"', id="string"),
        pytest.param(b'{"name": null}', id="null-name"),
        pytest.param(b'{"name": ["a"]}', id="list-name"),
        pytest.param(b'{"name": 12}', id="number-name"),
        pytest.param(b'{"name": "x", "mode": "mirror"}', id="unknown-mode"),
        pytest.param(b'{"name": "x", "at": 5}', id="number-at"),
        pytest.param(b"{}", id="no-name"),
        pytest.param(b'{"name": "' + b"[" * 5000 + b'"}', id="brackets-in-string"),
        pytest.param(b"[" * 5000 + b"]" * 5000, id="deeply-nested"),
    ],
)
async def test_a_malformed_branch_request_is_a_4xx_problem(
    http: httpx.AsyncClient, body: bytes
) -> None:
    response = await http.post(
        f"{SUPPLY}/branches", content=body, headers={"Content-Type": "application/json"}
    )
    assert 400 <= response.status_code < 500, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    assert response.json()["status"] == response.status_code


@pytest.mark.anyio
async def test_malformed_json_is_400_malformed_json(http: httpx.AsyncClient) -> None:
    response = await http.post(
        f"{SUPPLY}/branches", content=b'{"name": ', headers={"Content-Type": "application/json"}
    )
    assert_problem(response, 400, "malformed-json")


@pytest.mark.anyio
async def test_a_member_of_the_wrong_type_is_422_at_its_path(http: httpx.AsyncClient) -> None:
    response = await http.post(f"{SUPPLY}/branches", json={"name": ["feature"]})
    assert_problem(response, 422, "invalid-input")
    assert [issue["path"] for issue in response.json()["issues"]] == ["name"]


@pytest.mark.anyio
async def test_an_unknown_member_in_a_branch_request_is_422(http: httpx.AsyncClient) -> None:
    response = await http.post(f"{SUPPLY}/branches", json={"name": "x", "colour": "blue"})
    assert_problem(response, 422, "invalid-input")
    [issue] = response.json()["issues"]
    assert issue["path"] == "colour"
    branches = (await http.get(f"{SUPPLY}/branches")).json()["branches"]
    assert [branch["name"] for branch in branches] == ["main"]


# -- no bad input answers 500 ----------------------------------------------------------------------

NUL = "a NUL character reaches PostgreSQL as a text parameter and fails the statement (500)"

BAD_GETS = [
    pytest.param("/kinds/Supplier/records?limit=abc", False, id="limit-text"),
    pytest.param("/kinds/Supplier/records?limit=1.5", False, id="limit-decimal"),
    pytest.param("/kinds/Supplier/records?limit=", False, id="limit-empty"),
    pytest.param("/kinds/Supplier/records?cursor=%FF%FE", False, id="cursor-bytes"),
    pytest.param("/kinds/Supplier/records?cursor=" + "A" * 5000, False, id="cursor-long"),
    pytest.param(
        "/kinds/Supplier/records/S-1001/history?cursor=eyJwIjoxZTUwMH0",
        False,
        id="history-cursor-float",
    ),
    pytest.param(
        "/kinds/Supplier/records/S-1001/history?cursor=eyJwIjotMX0",
        False,
        id="history-cursor-negative",
    ),
    pytest.param(
        "/kinds/Supplier/records/S-1001/history?cursor=eyJwIjo5OTk5OTk5OTk5OTk5OTk5OTk5OTk5fQ",
        False,
        id="history-cursor-huge",
    ),
    pytest.param("/kinds/Supplier/records/S-1001/history?values=perhaps", False, id="values-text"),
    pytest.param("/kinds/Supplier/records/S-1001?links=maybe", False, id="links-text"),
    pytest.param("/kinds/Supplier/records/S-1001/explain?format=xml", False, id="format-xml"),
    pytest.param("/kinds/Supplier/records?at=zzzz", False, id="at-not-hex"),
    pytest.param("/kinds/Supplier/records?at=abc", False, id="at-short"),
    pytest.param("/kinds/Supplier/records?at=" + "a" * 300, False, id="at-long"),
    pytest.param("/kinds/Supplier/records?at=%25", False, id="at-percent"),
    pytest.param("/kinds/Supplier/records?at=%27%3B--", False, id="at-quote"),
    pytest.param("/kinds/Supplier/records?branch=%27%3B--", False, id="branch-quote"),
    pytest.param("/kinds/Supplier/records?branch=" + "b" * 1000, False, id="branch-long"),
    pytest.param("/kinds/Supplier/records/%FF", False, id="key-latin1"),
    pytest.param("/kinds/Supplier/records/" + "k" * 3000, False, id="key-long"),
    pytest.param("/kinds/Supplier/records/%E2%80%AE", False, id="key-bidi"),
    pytest.param("/kinds/%F0%9F%98%80/records", False, id="kind-emoji"),
    pytest.param("/kinds/Supplier/records/S-1001/links/%20", False, id="relation-space"),
    pytest.param("/diff", False, id="diff-without-revisions"),
    pytest.param("/diff?from=x&to=y", False, id="diff-unknown"),
    pytest.param("/diff?from=&to=", False, id="diff-empty"),
    pytest.param("/diff?from=abcd&to=abcd", False, id="diff-short-prefix"),
    pytest.param("/branches/%27%3B--", False, id="branch-path-quote"),
    pytest.param("/tags/%FF", False, id="tag-latin1"),
    pytest.param("/kinds/Supplier/records?branch=%00", True, id="branch-nul"),
    pytest.param("/kinds/Supplier/records?at=%00", True, id="at-nul"),
    pytest.param("/kinds/Supplier/records/%00", True, id="key-nul"),
    pytest.param("/kinds/Supplier/records/%00/history", True, id="history-key-nul"),
    pytest.param("/kinds/Supplier/records/%00/lineage", True, id="lineage-key-nul"),
    pytest.param("/kinds/Supplier/records/%00/explain", True, id="explain-key-nul"),
    pytest.param("/kinds/Supplier/records/%00/links/supplies", True, id="links-key-nul"),
    pytest.param(
        "/kinds/Supplier/records?cursor=eyJsIjoicmVjb3JkczpTdXBwbGllciIsImEiOiJcdTAwMDAifQ",
        True,
        id="cursor-nul",
    ),
    pytest.param("/diff?from=%00&to=%00", True, id="diff-nul"),
    pytest.param("/branches/%00", True, id="branch-path-nul"),
]


@pytest.fixture
async def wire(keeper: FastAPI, keys: Keys) -> AsyncIterator[httpx.AsyncClient]:
    """An admin's client that meets a failing Keeper as a real one would: with a 500 answer."""
    transport = httpx.ASGITransport(app=keeper, raise_app_exceptions=False)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://keeper.test", headers=Keys.header(keys.admin)
    ) as client:
        yield client


def expect_nul_failure(request: pytest.FixtureRequest, store: Store, nul: bool) -> None:
    """NUL characters were a 500 on PostgreSQL; the store now refuses them as 400."""


def assert_handled(response: httpx.Response) -> None:
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert response.headers["content-type"].startswith(PROBLEM)


@pytest.mark.anyio
@pytest.mark.parametrize(("path", "nul"), BAD_GETS)
async def test_no_bad_read_answers_500(
    wire: httpx.AsyncClient, supply: Store, request: pytest.FixtureRequest, path: str, nul: bool
) -> None:
    expect_nul_failure(request, supply, nul)
    assert_handled(await wire.get(SUPPLY + path))


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("domain", "nul"),
    [
        pytest.param("%FF", False, id="latin1"),
        pytest.param("%27%3B--", False, id="quote"),
        pytest.param("%00", True, id="nul"),
    ],
)
@pytest.mark.parametrize("route", ["schema", "branches", "tags"])
async def test_no_bad_domain_answers_500(
    wire: httpx.AsyncClient,
    supply: Store,
    request: pytest.FixtureRequest,
    domain: str,
    nul: bool,
    route: str,
) -> None:
    expect_nul_failure(request, supply, nul)
    assert_handled(await wire.get(f"/api/v1/domains/{domain}/{route}"))


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("body", "nul"),
    [
        pytest.param({"name": "x", "from": "\u0000"}, True, id="from-nul"),
        pytest.param({"name": "x", "at": "\u0000"}, True, id="at-nul"),
        pytest.param({"name": "x\u0000"}, False, id="name-nul"),
        pytest.param({"name": "x", "from": "'; --"}, False, id="from-quote"),
        pytest.param({"name": "x", "at": "a" * 300}, False, id="at-long"),
        pytest.param({"name": "x", "from": "b" * 1000}, False, id="from-long"),
    ],
)
async def test_no_bad_branch_request_answers_500(
    wire: httpx.AsyncClient,
    supply: Store,
    request: pytest.FixtureRequest,
    body: dict[str, str],
    nul: bool,
) -> None:
    expect_nul_failure(request, supply, nul)
    assert_handled(await wire.post(f"{SUPPLY}/branches", json=body))


@pytest.mark.anyio
@pytest.mark.parametrize(
    "header",
    [
        pytest.param((b"authorization", b"Bearer lbk_" + b"z" * 5000), id="long-key"),
        pytest.param((b"x-api-key", b"lbk_%00"), id="escaped-nul-key"),
        pytest.param((b"authorization", b"Bearer lbk_000000000000_" + b"\xe9" * 30), id="latin1"),
        pytest.param((b"if-none-match", b"W/" * 1000), id="weird-etag"),
    ],
)
async def test_no_bad_header_answers_500(
    wire: httpx.AsyncClient, header: tuple[bytes, bytes]
) -> None:
    assert_handled(await wire.get(S_1001, headers=[header]))
