"""GET /domains/{domain}/audit: the read audit and the write audit of a Domain, for its admins.

Reads are seeded with `Store.write_read_audit` (the recorder's batch write); writes come from a
real task write of the agent through HTTP (its task branch and Proposal are audited).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from lorebase_keeper.testing import Keys, assert_problem
from lorebase_store import ReadAuditEntry, Store

pytestmark = pytest.mark.anyio

AUDIT = "/api/v1/domains/supply/audit"
READS = [
    ReadAuditEntry(
        principal=principal,
        route="/api/v1/domains/{domain}/kinds/{kind}/records/{key}",
        domain="supply",
        branch="main",
        revision="r" * 64,
        refs=[{"kind": "Supplier", "key": "S-1001"}],
        status=200,
        at=at,
    )
    for principal, at in (
        ("usr_viewer", "2020-01-01T10:00:00Z"),
        ("svc_agent", "2020-01-02T10:00:00Z"),
        ("usr_viewer", "2020-01-03T10:00:00Z"),
    )
]


@pytest.fixture
async def api(keeper: FastAPI, keys: Keys, supply: Store) -> AsyncIterator[httpx.AsyncClient]:
    supply.write_read_audit(READS)
    # an agent writes main through task branches (the conftest's agent only reads main)
    supply.add_grant("svc_agent", domain="supply", role="editor", branch="main")
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=keeper), base_url="http://keeper.test"
    ) as client:
        execution = await client.post(
            "/api/v1/domains/supply/operations/flag_supplier_risk/execute",
            json={
                "parameters": {"supplier": "S-1001", "severity": "high", "reason": "late"},
                "task": "q4-audit",
                "intent": "Flag S-1001",
            },
            headers=Keys.header(keys.agent),
        )
        assert execution.status_code == 202, execution.text
        yield client


async def audit(api: httpx.AsyncClient, key: str, **params: Any) -> dict[str, Any]:
    response = await api.get(AUDIT, params=params, headers=Keys.header(key))
    assert response.status_code == 200, response.text
    document: dict[str, Any] = response.json()
    return document


async def test_an_administrator_reads_reads_and_writes_newest_first(
    api: httpx.AsyncClient, keys: Keys
) -> None:
    document = await audit(api, keys.admin)
    assert document["domain"] == "supply"
    assert document["next_cursor"] is None
    entries = document["entries"]
    kinds = [entry["kind"] for entry in entries]
    assert kinds[-3:] == ["read", "read", "read"], "the seeded reads are older than the writes"
    assert set(kinds[:-3]) == {"write"}
    writes = [entry for entry in entries if entry["kind"] == "write"]
    assert {entry["principal"] for entry in writes} == {"svc_agent"}
    assert "branch.create" in {entry["action"] for entry in writes}
    assert all(entry["id"].startswith("write-") for entry in writes)
    newest_read = entries[-3]
    assert newest_read == {
        "kind": "read",
        "id": newest_read["id"],
        "principal": "usr_viewer",
        "at": "2020-01-03T10:00:00Z",
        "route": "/api/v1/domains/{domain}/kinds/{kind}/records/{key}",
        "branch": "main",
        "revision": "r" * 64,
        "refs": [{"kind": "Supplier", "key": "S-1001"}],
        "status": 200,
    }
    assert newest_read["id"].startswith("read-")


async def test_the_filters_and_the_pages(api: httpx.AsyncClient, keys: Keys) -> None:
    reads = await audit(api, keys.admin, kind="read")
    assert [entry["at"] for entry in reads["entries"]] == [
        "2020-01-03T10:00:00Z",
        "2020-01-02T10:00:00Z",
        "2020-01-01T10:00:00Z",
    ]
    writes = await audit(api, keys.admin, kind="write")
    assert writes["entries"]
    assert {entry["kind"] for entry in writes["entries"]} == {"write"}
    viewer = await audit(api, keys.admin, principal="usr_viewer")
    assert [entry["at"] for entry in viewer["entries"]] == [
        "2020-01-03T10:00:00Z",
        "2020-01-01T10:00:00Z",
    ]
    span = await audit(
        api, keys.admin, since="2020-01-02T10:00:00Z", until="2020-01-03T10:00:00+00:00"
    )
    assert [entry["at"] for entry in span["entries"]] == ["2020-01-02T10:00:00Z"]
    everything = (await audit(api, keys.admin))["entries"]
    paged: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await audit(api, keys.admin, limit=2, **({"cursor": cursor} if cursor else {}))
        assert len(page["entries"]) <= 2
        paged.extend(page["entries"])
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert paged == everything


@pytest.mark.parametrize("reader", ["viewer", "supplier", "agent"])
async def test_others_than_domain_administrators_are_forbidden(
    api: httpx.AsyncClient, keys: Keys, reader: str
) -> None:
    response = await api.get(AUDIT, headers=Keys.header(getattr(keys, reader)))
    document = assert_problem(response, 403, "forbidden")
    assert document["permission"] == "domain.settings"


async def test_bad_input_and_domains_one_cannot_read(
    api: httpx.AsyncClient, keys: Keys, supply: Store
) -> None:
    headers = Keys.header(keys.admin)
    for params, path in (
        ({"kind": "delete"}, "kind"),
        ({"since": "yesterday"}, "since"),
        ({"until": "2020-01-01T10:00:00"}, "until"),
        ({"limit": "0"}, "limit"),
        ({"limit": "501"}, "limit"),
    ):
        response = await api.get(AUDIT, params=params, headers=headers)
        document = assert_problem(response, 422, "invalid-input")
        assert document["issues"][0]["path"] == path, params
    bad_cursor = await api.get(AUDIT, params={"cursor": "nope"}, headers=headers)
    assert_problem(bad_cursor, 400, "bad-cursor")
    unknown = await api.get("/api/v1/domains/nowhere/audit", headers=headers)
    assert_problem(unknown, 404, "domain-not-found")
    supply.ensure_principal("usr_root", principal_type="user")
    root = supply.create_key("usr_root").secret
    supply.add_grant("usr_root", domain="*", role="admin")
    unknown = await api.get("/api/v1/domains/nowhere/audit", headers=Keys.header(root))
    assert_problem(unknown, 404, "domain-not-found")
    supply.ensure_principal("usr_nobody", principal_type="user")
    nobody = supply.create_key("usr_nobody").secret
    assert_problem(await api.get(AUDIT, headers=Keys.header(nobody)), 404, "domain-not-found")
    assert_problem(await api.get(AUDIT), 401, "unauthorized")
