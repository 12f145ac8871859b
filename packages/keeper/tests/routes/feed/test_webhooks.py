"""The webhook routes: the spec's example, the secret once, domain.settings, clearances, audit."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from packages.keeper.tests.conftest import client_of

from lorebase_core.changes import UpsertRecord
from lorebase_core.errors import ClearanceForbidden
from lorebase_keeper.app import create_app
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.routes.feed.webhooks import _require_clearances
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import GrantInfo, OutgoingDelivery, SendResult, Store, deliver_pending
from lorebase_store.testing import change_request

pytestmark = pytest.mark.anyio

WEBHOOKS = "/api/v1/domains/supply/webhooks"
KEY_ENV = "LOREBASE_TEST_KEEPER_WEBHOOK_KEY"


@pytest.fixture
def keeper_settings(monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv(KEY_ENV, "s" * 48)
    return Settings(
        keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}},
        webhooks={"encryption_key": f"secret://env/{KEY_ENV}"},
    )


async def test_the_spec_example_registers_a_webhook_and_shows_the_secret_once(
    http: httpx.AsyncClient,
) -> None:
    created = await http.post(
        WEBHOOKS,
        json={
            "url": "https://agents.example.com/lorebase",
            "events": ["revision.committed"],
            "branches": ["main"],
        },
    )
    assert created.status_code == 201
    body = created.json()
    secret = body.pop("secret")
    assert len(secret) >= 40
    assert body["id"].startswith("whk_")
    assert (body["events"], body["branches"], body["enabled"]) == (
        ["revision.committed"],
        ["main"],
        True,
    )
    listed = await http.get(WEBHOOKS)
    assert listed.json()["webhooks"] == [body]
    one = await http.get(f"{WEBHOOKS}/{body['id']}")
    assert one.json() == body
    for answer in (listed, one):
        assert secret not in answer.text
        assert "signing_key" not in answer.text
    audit = await http.get("/api/v1/domains/supply/audit", params={"kind": "write"})
    assert secret not in audit.text
    assert "webhook.create" in audit.text


async def test_events_default_to_revisions_and_every_operation(http: httpx.AsyncClient) -> None:
    created = await http.post(WEBHOOKS, json={"url": "https://agents.example.com/hook"})
    assert created.json()["events"] == ["revision.committed", "operation.*"]
    assert created.json()["branches"] == []


async def test_bad_input_is_a_problem_naming_each_member_and_writes_nothing(
    http: httpx.AsyncClient,
) -> None:
    refused = await http.post(
        WEBHOOKS,
        json={
            "url": "http://10.0.0.8/hook",
            "events": ["operation.no_such_effect"],
            "branches": ["nope"],
            "clearances": ["top-secret"],
        },
    )
    problem = assert_problem(refused, 422, "webhook-invalid")
    paths = {issue["path"] for issue in problem["issues"]}  # type: ignore[attr-defined]
    assert paths == {"url", "events[0]", "branches[0]", "clearances[0]"}
    assert (await http.get(WEBHOOKS)).json()["webhooks"] == []
    extra = await http.post(WEBHOOKS, json={"url": "https://a.example.com/", "secret": "mine"})
    assert extra.status_code == 422


async def test_managing_webhooks_needs_domain_settings(http: httpx.AsyncClient, keys: Keys) -> None:
    for key in (keys.viewer, keys.supplier, keys.agent):
        headers = Keys.header(key)
        assert_problem(await http.get(WEBHOOKS, headers=headers), 403, "forbidden")
        refused = await http.post(
            WEBHOOKS, json={"url": "https://agents.example.com/"}, headers=headers
        )
        assert_problem(refused, 403, "forbidden")
    assert_problem(await http.get("/api/v1/domains/nowhere/webhooks"), 404, "domain-not-found")


def test_a_clearance_needs_its_read_permission_on_the_whole_domain() -> None:
    def grant(role: str, branch: str, clearances: tuple[str, ...] = ()) -> GrantInfo:
        return GrantInfo(
            id=1,
            principal="usr_x",
            domain="supply",
            branch=branch,
            role=role,
            kinds=None,
            clearances=clearances,
            created_at="2026-01-01T00:00:00Z",
        )

    narrow = Principal(
        "usr_x", "user", (grant("viewer", "*"), grant("viewer", "main", ("pii",))), "api_key"
    )
    with pytest.raises(ClearanceForbidden, match=r"pii\.read"):
        _require_clearances(narrow, "supply", ["pii"])
    wide = Principal("usr_x", "user", (grant("viewer", "*", ("pii",)),), "api_key")
    _require_clearances(wide, "supply", ["pii"])


async def test_patch_delete_deliveries_and_retry(
    http: httpx.AsyncClient, supply: Store, keeper_settings: Settings
) -> None:
    created = (
        await http.post(
            WEBHOOKS,
            json={"url": "https://agents.example.com/hook", "clearances": ["pii"]},
        )
    ).json()
    hook = f"{WEBHOOKS}/{created['id']}"
    changed = await http.patch(hook, json={"clearances": ["pii", "restricted"], "enabled": True})
    assert changed.status_code == 200
    assert changed.json()["clearances"] == ["pii", "restricted"]
    assert_problem(await http.patch(hook, json={"events": []}), 422, "webhook-invalid")

    supply.commit(
        change_request("Lower the risk", domain="supply"),
        [UpsertRecord("Supplier", "S-1001", {"risk_score": 42}, must_exist=True)],
    )

    class Gone:
        async def send(self, delivery: OutgoingDelivery) -> SendResult:
            return SendResult(500)

    await deliver_pending(
        supply, Gone(), keeper_settings.webhooks.model_copy(update={"max_attempts": 1})
    )
    dead = (await http.get(f"{hook}/deliveries", params={"status": "dead"})).json()
    [delivery] = dead["deliveries"]
    assert delivery["idempotency_key"] == f"evt_{delivery['sequence']}"
    retried = await http.post(f"{hook}/deliveries/{delivery['id']}/retry")
    assert (retried.json()["id"], retried.json()["status"]) == (delivery["id"], "pending")
    assert_problem(await http.post(f"{hook}/deliveries/{delivery['id']}/retry"), 409, "conflict")
    assert_problem(
        await http.post(f"{hook}/deliveries/dlv_nothing/retry"), 404, "delivery-not-found"
    )
    assert_problem(await http.get(f"{hook}/deliveries", params={"limit": 0}), 422, "invalid-input")

    removed = await http.delete(hook)
    assert removed.json() == {"id": created["id"], "deleted": True, "deliveries_dropped": 1}
    assert_problem(await http.get(hook), 404, "webhook-not-found")
    assert_problem(await http.delete(hook), 404, "webhook-not-found")


async def test_without_an_encryption_key_creation_answers_409(supply: Store, keys: Keys) -> None:
    app: FastAPI = create_app(
        Settings(keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}}),
        store=supply,
    )
    async with client_of(app, Keys.header(keys.admin)) as client:
        refused = await client.post(WEBHOOKS, json={"url": "https://agents.example.com/"})
    problem = assert_problem(refused, 409, "encryption_key_required")
    assert "webhooks.encryption_key" in str(problem["detail"])
