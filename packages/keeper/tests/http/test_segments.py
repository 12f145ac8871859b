"""Keys, branches and tags with `/`, `%`, spaces and non-ASCII letters in one path segment."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest
from packages.keeper.tests.conftest import client_of

from lorebase_core.changes import UpsertRecord
from lorebase_core.schema import load_schema
from lorebase_keeper.app import create_app
from lorebase_platform.settings import Settings
from lorebase_store import Store
from lorebase_store.testing import commit_changes

SCHEMA = """
domain: {name: odd}
kinds:
  Thing:
    key: [code]
    title: name
    attributes:
      code: {type: string}
      name: {type: string}
"""

ODD_CODES = ["PL-7/B", "PL 100%", "PL-Zürich", "PL-a%2Fb"]


@pytest.mark.anyio
@pytest.mark.parametrize("code", ODD_CODES)
async def test_a_key_is_one_percent_encoded_segment(store: Store, code: str) -> None:
    store.create_domain(load_schema(SCHEMA), created_by="usr_tester")
    commit_changes(
        store, [UpsertRecord("Thing", None, {"code": code, "name": "a thing"})], domain="odd"
    )
    app = create_app(Settings(keeper={"auth": {"mode": "none"}}), store=store)
    async with client_of(app) as http:
        path = f"/api/v1/domains/odd/kinds/Thing/records/{quote(code, safe='')}"
        response = await http.get(path)
        history = await http.get(f"{path}/history")
    assert response.status_code == 200, response.text
    assert response.json()["key"] == code
    assert response.json()["ref"] == f"Thing/{code}"
    assert history.json()["ref"] == f"Thing/{code}"


@pytest.mark.anyio
async def test_a_branch_name_with_slashes_reads_encoded_or_not(http: httpx.AsyncClient) -> None:
    created = await http.post(
        "/api/v1/domains/supply/branches", json={"name": "feature/usr_admin/q4-audit"}
    )
    assert created.status_code == 201, created.text
    for path in ("feature/usr_admin/q4-audit", quote("feature/usr_admin/q4-audit", safe="")):
        response = await http.get(f"/api/v1/domains/supply/branches/{path}")
        assert response.status_code == 200, response.text
        assert response.json()["name"] == "feature/usr_admin/q4-audit"
