"""`client.webhooks` and `lorebase webhook ...` against a Keeper on loopback with its own store."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from packages.client.tests.conftest import SUPPLY, serve_in_thread

from lorebase_client import AsyncLorebaseClient, LorebaseClient
from lorebase_client.cli import main
from lorebase_core.changes import UpsertRecord
from lorebase_core.errors import Forbidden, InvalidInput, NotFound
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import grant_key
from lorebase_platform.settings import Settings
from lorebase_store import OutgoingDelivery, SendResult, Store, deliver_pending, import_directory
from lorebase_store.testing import change_request

KEY_ENV = "LOREBASE_TEST_CLIENT_WEBHOOK_KEY"
TARGET = "https://agents.example.com/lorebase"


@dataclass(frozen=True)
class HookKeeper:
    url: str
    admin_key: str
    viewer_key: str
    store: Store
    settings: Settings


@pytest.fixture(scope="module")
def hook_keeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HookKeeper]:
    directory: Path = tmp_path_factory.mktemp("hook-keeper")
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setenv(KEY_ENV, "c" * 40)
    store = Store.open(f"sqlite:///{directory / 'lorebase.sqlite'}")
    try:
        import_directory(store, SUPPLY)
        keys = {
            name: grant_key(store, name, domain="supply", role=role)
            for name, role in (("usr_admin", "admin"), ("usr_viewer", "viewer"))
        }
        settings = Settings(
            keeper={"auth": {"mode": "api_key"}},
            webhooks={"encryption_key": f"secret://env/{KEY_ENV}"},
        )
        with serve_in_thread(create_app(settings, store=store)) as url:
            yield HookKeeper(url, keys["usr_admin"], keys["usr_viewer"], store, settings)
    finally:
        store.close()
        monkeypatch.undo()


def test_the_client_manages_webhooks_and_retries_a_dead_delivery(hook_keeper: HookKeeper) -> None:
    with LorebaseClient(hook_keeper.url, api_key=hook_keeper.admin_key) as client:
        created = client.webhooks.create("supply", TARGET, branches=["main"])
        webhook_id = str(created["id"])
        assert len(str(created["secret"])) >= 40
        assert [w["id"] for w in client.webhooks.list("supply")["webhooks"]] == [webhook_id]
        assert "secret" not in client.webhooks.get("supply", webhook_id)
        changed = client.webhooks.update("supply", webhook_id, clearances=["pii"], enabled=True)
        assert changed["clearances"] == ["pii"]
        with pytest.raises(InvalidInput):
            client.webhooks.update("supply", webhook_id, events=["nothing.happened"])

        hook_keeper.store.commit(
            change_request("Raise the risk", domain="supply"),
            [UpsertRecord("Supplier", "S-1001", {"risk_score": 77}, must_exist=True)],
        )

        class Failing:
            async def send(self, delivery: OutgoingDelivery) -> SendResult:
                return SendResult(None, error="connection refused")

        once = hook_keeper.settings.webhooks.model_copy(update={"max_attempts": 1})
        asyncio.run(deliver_pending(hook_keeper.store, Failing(), once))
        [dead] = client.webhooks.deliveries("supply", webhook_id, status="dead")["deliveries"]
        assert dead["last_error"] == "connection refused"
        again = client.webhooks.retry("supply", webhook_id, str(dead["id"]))
        assert again["status"] == "pending"
        assert client.webhooks.delete("supply", webhook_id)["deleted"] is True
        with pytest.raises(NotFound):
            client.webhooks.get("supply", webhook_id)
    with (
        LorebaseClient(hook_keeper.url, api_key=hook_keeper.viewer_key) as viewer,
        pytest.raises(Forbidden),
    ):
        viewer.webhooks.list("supply")


def test_the_async_client_lists_the_same(hook_keeper: HookKeeper) -> None:
    async def listed() -> list[object]:
        async with AsyncLorebaseClient(hook_keeper.url, api_key=hook_keeper.admin_key) as client:
            made = await client.webhooks.create("supply", TARGET)
            answer = await client.webhooks.list("supply")
            await client.webhooks.delete("supply", str(made["id"]))
            return [w["id"] for w in answer["webhooks"]]

    assert len(asyncio.run(listed())) == 1


def test_the_cli_prints_the_secret_once_and_lists_without_it(hook_keeper: HookKeeper) -> None:
    runner = CliRunner()
    env = {"LOREBASE_URL": hook_keeper.url, "LOREBASE_API_KEY": hook_keeper.admin_key}
    added = runner.invoke(main, ["webhook", "add", "supply", TARGET, "--branch", "main"], env=env)
    assert added.exit_code == 0, added.output
    secret = next(
        line.split(": ", 1)[1] for line in added.output.splitlines() if line.startswith("secret:")
    )
    assert "shown only now" in added.output
    listed = runner.invoke(main, ["webhook", "list", "supply"], env=env)
    assert listed.exit_code == 0, listed.output
    [webhook] = json.loads(listed.output)["webhooks"]
    assert secret not in listed.output
    deliveries = runner.invoke(
        main, ["webhook", "deliveries", "supply", webhook["id"], "--status", "dead"], env=env
    )
    assert json.loads(deliveries.output)["deliveries"] == []
    retried = runner.invoke(main, ["webhook", "retry", "supply", webhook["id"], "dlv_x"], env=env)
    assert retried.exit_code != 0
    assert "delivery-not-found" in retried.output or "dlv_x" in retried.output
    removed = runner.invoke(main, ["webhook", "remove", "supply", webhook["id"]], env=env)
    assert removed.exit_code == 0, removed.output
    bad = runner.invoke(main, ["webhook", "add", "supply", "ftp://x.example.com/"], env=env)
    assert bad.exit_code != 0
    assert "webhooks.allowed_schemes" in bad.output
