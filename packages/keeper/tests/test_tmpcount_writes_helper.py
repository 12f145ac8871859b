from __future__ import annotations

import re

import httpx
import pytest
import sqlalchemy as sa
from packages.keeper.tests.test_writes import API, Callers, work_branch, settings_with

from lorebase_keeper.app import create_app
from lorebase_store import Store

pytestmark = pytest.mark.anyio


async def test_count(supply: Store) -> None:
    callers = Callers(supply)
    app = create_app(settings_with(), store=supply)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://k") as api:
        await work_branch(api, callers)
        seen: list[str] = []

        def listen(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
            seen.append(statement)

        sa.event.listen(supply.engine, "before_cursor_execute", listen)
        for n, body in enumerate([
            {"parameters": {"key": "S-1001", "risk_score": 75}, "branch": "work"},
        ]):
            seen.clear()
            headers = {**callers.editor, "Idempotency-Key": f"k{n}"}
            r = await api.post(f"{API}/operations/update_supplier/execute", json=body, headers=headers)
            assert r.status_code == 200, r.text
            dom = [s for s in seen if re.search(r"\bFROM domains\b", s)]
            txn = [s for s in seen if s.strip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK"))]
            print("\nSTATEMENTS", len(seen), "DOMAIN", len(dom))
            for s in seen:
                print("  ", " ".join(s.split())[:160])
        sa.event.remove(supply.engine, "before_cursor_execute", listen)
