"""The coverage block (`reads/coverage.py`): the statistics read once per answer."""

from __future__ import annotations

import re

import httpx
import pytest

from lorebase_store import Store
from lorebase_store.testing import statements_run

pytestmark = pytest.mark.anyio


async def test_the_statistics_are_read_once_for_the_etag_and_the_block(
    http: httpx.AsyncClient, supply: Store
) -> None:
    query = {"kind": "Supplier", "where": {"attr": "tier", "op": "eq", "value": 1}}
    with statements_run(supply) as seen:
        response = await http.post("/api/v1/domains/supply/query", json=query)
    assert response.status_code == 200, response.text
    assert response.json()["coverage"]["kinds"][0]["approximate"] is False
    statistics = [statement for statement in seen if re.search(r"\bFROM statistics\b", statement)]
    assert len(statistics) == 1
