"""Bad text anywhere in a request is a 4xx problem document, never a 500, and no value is logged.

The sweep sends lone UTF-16 surrogates (`"\\ud800"`), NUL characters (`"\\u0000"`) and bytes
that are not UTF-8 in every place a request carries text: JSON values and member names of each
route, path segments, query strings and the headers that reach the store. Each is one
`422 invalid-text` naming where the text is, and nothing is written. The strings carry a marker,
and the log test checks that no log record (SQLAlchemy's at DEBUG included) repeats it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI
from packages.keeper.tests.conftest import client_of

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store

pytestmark = pytest.mark.anyio

API = "/api/v1/domains/supply"
MARKER = "secret-marker-7f3a"

# how each kind of bad text is written in a JSON body, in a URL, and the escape an issue shows
BODY_TEXT = {
    "lone-surrogate": rb"\ud800",
    "nul": rb"\u0000",
    "invalid-utf8": b"\xff",
}
URL_TEXT = {"nul": "%00", "invalid-utf8": "%FF", "surrogate-as-utf8": "%ED%A0%80"}
SHOWN = {"lone-surrogate": "\\ud800", "nul": "\\u0000", "invalid-utf8": "\\xff"}


@dataclass(frozen=True)
class BodyCase:
    """A JSON body with `@` where the bad string goes, and the path its issue names."""

    name: str
    path: str
    body: str
    issue_path: str


BODY_CASES = [
    BodyCase(
        "query-value",
        "/query",
        '{"kind": "Supplier", "where": {"and": [{"attr": "legal_name", "op": "eq", "value": @}]}}',
        "where.and[0].value",
    ),
    BodyCase("query-kind", "/query", '{"kind": @}', "kind"),
    BodyCase("query-member-name", "/query", '{"kind": "Supplier", @: 1}', "@"),
    BodyCase(
        "query-attr",
        "/query",
        '{"kind": "Supplier", "where": {"attr": @, "op": "eq", "value": "x"}}',
        "where.attr",
    ),
    BodyCase(
        "query-relation-predicate",
        "/query",
        '{"kind": "Supplier", "where": {"rel": "supplier_orders",'
        ' "where": {"attr": "status", "op": "in", "value": ["open", @]}}}',
        "where.where.value[1]",
    ),
    BodyCase("query-select", "/query", '{"kind": "Supplier", "select": [@]}', "select[0]"),
    BodyCase("query-branch", "/query", '{"kind": "Supplier", "branch": @}', "branch"),
    BodyCase("query-at", "/query", '{"kind": "Supplier", "at": @}', "at"),
    BodyCase("query-cursor", "/query", '{"kind": "Supplier", "cursor": @}', "cursor"),
    BodyCase("search-q", "/search", '{"q": @}', "q"),
    BodyCase("search-kinds", "/search", '{"q": "seal", "kinds": [@]}', "kinds[0]"),
    BodyCase("resolve-text", "/resolve", '{"text": @}', "text"),
    BodyCase("context-refs", "/context", '{"refs": ["Supplier/S-1001", @]}', "refs[1]"),
    BodyCase("context-search", "/context", '{"search": @}', "search"),
    BodyCase(
        "context-query",
        "/context",
        '{"query": {"kind": "Supplier", "where": {"attr": "country", "op": "eq", "value": @}}}',
        "query.where.value",
    ),
    BodyCase("traverse-start", "/traverse", '{"start": [@], "path": ["supplies"]}', "start[0]"),
    BodyCase(
        "traverse-path", "/traverse", '{"start": ["Supplier/S-1007"], "path": [@]}', "path[0]"
    ),
    BodyCase("neighborhood-refs", "/neighborhood", '{"refs": [@]}', "refs[0]"),
    BodyCase(
        "execute-parameter",
        "/operations/update_supplier/execute",
        '{"branch": "work", "parameters": {"key": "S-1001", "city": @}}',
        "parameters.city",
    ),
    BodyCase(
        "execute-parameter-name",
        "/operations/update_supplier/execute",
        '{"branch": "work", "parameters": {"key": "S-1001", @: "x"}}',
        "parameters.@",
    ),
    BodyCase(
        "execute-message",
        "/operations/update_supplier/execute",
        '{"branch": "work", "parameters": {"key": "S-1001", "risk_score": 5}, "message": @}',
        "message",
    ),
    BodyCase(
        "execute-idempotency-key",
        "/operations/update_supplier/execute",
        '{"branch": "work", "parameters": {"key": "S-1001", "risk_score": 5},'
        ' "idempotency_key": @}',
        "idempotency_key",
    ),
    BodyCase(
        "execute-task",
        "/operations/flag_supplier_risk/execute",
        '{"parameters": {"supplier": "S-1001", "severity": "high", "reason": "late"}, "task": @}',
        "task",
    ),
    BodyCase(
        "execute-intent",
        "/operations/flag_supplier_risk/execute",
        '{"parameters": {"supplier": "S-1001", "severity": "high", "reason": "late"},'
        ' "task": "audit", "intent": @}',
        "intent",
    ),
    BodyCase(
        "execute-reason",
        "/operations/flag_supplier_risk/execute",
        '{"parameters": {"supplier": "S-1001", "severity": "high", "reason": @}, "task": "audit"}',
        "parameters.reason",
    ),
    BodyCase("proposal-source", "/proposals", '{"source": @}', "source"),
    BodyCase("proposal-title", "/proposals", '{"source": "work", "title": @}', "title"),
    BodyCase(
        "review-body", "/proposals/{proposal}/reviews", '{"verdict": "comment", "body": @}', "body"
    ),
    BodyCase("branch-name", "/branches", '{"name": @}', "name"),
    BodyCase("branch-merge", "/branches/work/merge", '{"into": @}', "into"),
]


@dataclass(frozen=True)
class UrlCase:
    """A request whose path or query string has `@` where the bad text goes."""

    name: str
    method: str
    url: str
    issue_path: str


URL_CASES = [
    UrlCase("record-key", "GET", "/kinds/Supplier/records/@", "path[7]"),
    UrlCase("record-history", "GET", "/kinds/Supplier/records/@/history", "path[7]"),
    UrlCase("kind", "GET", "/kinds/@/records", "path[5]"),
    UrlCase("branch", "GET", "/branches/@", "path[5]"),
    UrlCase("operation", "POST", "/operations/@/execute", "path[5]"),
    UrlCase("proposal", "GET", "/proposals/@", "path[5]"),
    UrlCase("at", "GET", "/schema?at=@", "at"),
    UrlCase("branch-parameter", "GET", "/kinds/Supplier/records?branch=@", "branch"),
    UrlCase("cursor", "GET", "/kinds/Supplier/records?cursor=@", "cursor"),
    UrlCase("diff", "GET", "/diff?from=main&to=@", "to"),
]


@dataclass
class Sweep:
    """What the sweep found wrong (empty when every answer was right)."""

    wrong: list[str]


def settings() -> Settings:
    return Settings(keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}})


@pytest.fixture
async def api(supply: Store, keys: Keys) -> AsyncIterator[httpx.AsyncClient]:
    """An admin's client, with a branch `work` holding one change and a Proposal of it."""
    app: FastAPI = create_app(settings(), store=supply)
    async with client_of(app, Keys.header(keys.admin)) as client:
        made = await client.post(f"{API}/branches", json={"name": "work"})
        assert made.status_code == 201, made.text
        written = await client.post(
            f"{API}/operations/update_supplier/execute",
            json={"branch": "work", "parameters": {"key": "S-1001", "city": f"{MARKER}-city"}},
        )
        assert written.status_code == 200, written.text
        yield client


async def heads(api: httpx.AsyncClient) -> dict[str, str]:
    answer = await api.get(f"{API}/branches")
    assert answer.status_code == 200, answer.text
    return {branch["name"]: branch["head"] for branch in answer.json()["branches"]}


def _check(wrong: list[str], name: str, response: httpx.Response, path: str, code: str) -> None:
    try:
        document = assert_problem(response, 422, "invalid-text")
    except (AssertionError, ValueError):
        wrong.append(f"{name}: {response.status_code} {response.text[:300]}")
        return
    issues = [(issue["path"], issue["code"]) for issue in document["issues"]]  # type: ignore[attr-defined]
    if issues != [(path, code)]:
        wrong.append(f"{name}: issues {issues}, expected {[(path, code)]}")


async def sweep(api: httpx.AsyncClient, proposal: str) -> Sweep:
    """Every bad text of every case; each answer must be one 422 invalid-text at its path."""
    wrong: list[str] = []
    for case in BODY_CASES:
        for code, bad in BODY_TEXT.items():
            text = b'"' + MARKER.encode() + bad + b'"'
            body = case.body.encode().replace(b"@", text)
            path = case.issue_path.replace("@", MARKER + SHOWN[code])
            url = API + case.path.format(proposal=proposal)
            response = await api.post(
                url, content=body, headers={"Content-Type": "application/json"}
            )
            _check(wrong, f"{case.name} {code}", response, path, code)
    for url_case in URL_CASES:
        for kind, bad in URL_TEXT.items():
            url = API + url_case.url.replace("@", MARKER + bad)
            response = await api.request(url_case.method, url, json={})
            code = "nul" if kind == "nul" else "invalid-utf8"
            _check(wrong, f"{url_case.name} {kind}", response, url_case.issue_path, code)
    for value, code in ((b"\x00", "nul"), (b"\xff", "invalid-utf8")):
        response = await api.post(
            f"{API}/operations/update_supplier/execute",
            json={"branch": "work", "parameters": {"key": "S-1001", "risk_score": 5}},
            headers=[(b"Idempotency-Key", MARKER.encode() + value)],
        )
        _check(wrong, f"idempotency-key header {code}", response, "idempotency-key", code)
    return Sweep(wrong)


async def open_proposal(api: httpx.AsyncClient) -> str:
    opened = await api.post(f"{API}/proposals", json={"source": "work", "target": "main"})
    assert opened.status_code == 201, opened.text
    return str(opened.json()["id"])


async def test_bad_text_anywhere_is_422_invalid_text_and_writes_nothing(
    api: httpx.AsyncClient, supply: Store
) -> None:
    proposal = await open_proposal(api)
    before = await heads(api)
    audit = len(supply.writes.audit("supply"))
    found = await sweep(api, proposal)
    assert found.wrong == []
    assert await heads(api) == before
    assert len(supply.writes.audit("supply")) == audit
    reviews = (await api.get(f"{API}/proposals/{proposal}")).json()["reviews"]
    assert reviews == []


async def test_one_issue_per_bad_string_with_its_json_path(api: httpx.AsyncClient) -> None:
    body = (
        '{"kind": "Supplier", "where": {"or": [{"attr": "city", "op": "eq", "value": "\\ud800"},'
        ' {"attr": "\\u0000", "op": "eq", "value": "ok"}]}, "\\udfff": ["\\ude00\\ud83d"]}'
    )
    response = await api.post(
        f"{API}/query", content=body.encode(), headers={"Content-Type": "application/json"}
    )
    document = assert_problem(response, 422, "invalid-text")
    assert [(issue["path"], issue["code"]) for issue in document["issues"]] == [  # type: ignore[attr-defined]
        ("\\udfff", "lone-surrogate"),
        ("\\udfff[0]", "lone-surrogate"),
        ("where.or[0].value", "lone-surrogate"),
        ("where.or[1].attr", "nul"),
    ]
    assert document["instance"] == f"{API}/query"


@pytest.mark.parametrize(
    ("body", "status"),
    [
        pytest.param('{"q": "seal \\ud83d\\ude00"}', 200, id="escaped-pair"),
        pytest.param('{"q": "seal \U0001f600"}', 200, id="raw-emoji"),
        pytest.param('{"q": "seal \\\\ud800"}', 200, id="escaped-backslash"),
        pytest.param('{"q": "seal \\u00e9"}', 200, id="escaped-letter"),
        pytest.param('{"q": "seal', 400, id="malformed"),
    ],
)
async def test_valid_text_passes_the_door(api: httpx.AsyncClient, body: str, status: int) -> None:
    response = await api.post(
        f"{API}/search", content=body.encode(), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == status, response.text
    if status == 400:
        assert_problem(response, 400, "malformed-json")


async def test_valid_percent_encoded_text_passes_the_door(api: httpx.AsyncClient) -> None:
    response = await api.get(f"{API}/kinds/Supplier/records/S-%F0%9F%98%80?branch=ma%69n")
    assert_problem(response, 404, "record-not-found")
    assert "S-\U0001f600" in response.json()["detail"]


async def test_a_failing_statement_is_a_500_problem_and_the_connection_stays(
    api: httpx.AsyncClient, supply: Store, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    with supply.engine.begin() as connection:
        connection.exec_driver_sql("ALTER TABLE resolve_misses RENAME TO resolve_misses_gone")
    response = await api.post(f"{API}/resolve", json={"text": "zorblat flurp"})
    document = assert_problem(response, 500, "internal")
    assert document["detail"] == "Keeper failed to answer; the error is logged."
    assert (await api.get("/healthz")).status_code == 200
    [error] = [r.getMessage() for r in caplog.records if r.name == "lorebase.keeper"]
    assert error.startswith("unexpected error on POST /api/v1/domains/{domain}/resolve:\n")
    assert "OperationalError" in error or "UndefinedTable" in error, error
    assert "  SQL: DELETE FROM resolve_misses" in error  # the retention prune runs first
    assert "resolve_misses.py" in error
    access = [r.getMessage() for r in caplog.records if r.name == "lorebase.keeper.access"]
    assert access[-2].startswith("POST /api/v1/domains/{domain}/resolve 500 ")
    assert access[-1].startswith("GET /healthz 200 ")


async def test_no_value_reaches_a_log(
    api: httpx.AsyncClient, supply: Store, caplog: pytest.LogCaptureFixture
) -> None:
    proposal = await open_proposal(api)
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="sqlalchemy")
    found = await sweep(api, proposal)
    assert found.wrong == []
    # values that pass the door reach SQL statements and result rows ...
    reads = [
        api.get(f"{API}/kinds/Supplier/records/S-1001", params={"branch": "work"}),
        api.get(f"{API}/kinds/Supplier/records/{MARKER}-key"),
        api.post(
            f"{API}/query",
            json={"kind": "Supplier", "where": {"attr": "city", "op": "eq", "value": MARKER}},
        ),
        api.post(f"{API}/search", json={"q": f"{MARKER}-search"}),
        api.post(
            f"{API}/operations/update_supplier/execute",
            json={"branch": "work", "parameters": {"key": "S-1001", "risk_score": 7}},
            headers={"Idempotency-Key": f"{MARKER}-idempotency"},
        ),
    ]
    for read in reads:
        assert (await read).status_code in {200, 404}
    # ... and into the text of a database error
    with supply.engine.begin() as connection:
        connection.exec_driver_sql("ALTER TABLE events RENAME TO events_gone")
    failed = await api.post(
        f"{API}/operations/update_supplier/execute",
        json={
            "branch": "work",
            "parameters": {"key": "S-1001", "risk_score": 8, "city": f"{MARKER}-elsewhere"},
            "message": f"{MARKER}-message",
        },
    )
    assert_problem(failed, 500, "internal")
    # the test's own client (httpx) logs the URLs it requests: that is not Keeper's log
    records = [r for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
    names = {record.name for record in records}
    assert {"sqlalchemy.engine.Engine", "lorebase.keeper", "lorebase.keeper.access"} <= names
    leaked = [text for text in map(caplog.handler.format, records) if MARKER in text]
    assert leaked == []


async def test_a_body_that_is_not_json_is_not_checked_as_text_and_is_no_500(
    api: httpx.AsyncClient,
) -> None:
    response = await api.post(
        f"{API}/search", content=b'{"q": "\xff\\ud800"}', headers={"Content-Type": "text/plain"}
    )
    assert_problem(response, 422, "invalid-input")  # not JSON to this route: not an object
