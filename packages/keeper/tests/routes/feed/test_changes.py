"""GET /branches/{branch}/changes: the polling feed, as a reader sees it."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from packages.keeper.tests.conftest import ROOT, api_key_settings, client_of

from lorebase_core.changes import UpsertRecord
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem, grant_key
from lorebase_platform.settings import Settings
from lorebase_store import Store, import_directory
from lorebase_store.testing import commit_changes

SUPPLY = "/api/v1/domains/supply"
CHANGES = f"{SUPPLY}/branches/main/changes"
LIBRARY = ROOT / "tests" / "data" / "library"

pytestmark = pytest.mark.anyio


@pytest.fixture
def keeper_settings() -> Settings:
    settings = api_key_settings()
    return settings.model_copy(
        update={
            "agents": settings.agents.model_copy(
                update={"feed": settings.agents.feed.model_copy(update={"max_scan": 5})}
            )
        }
    )


def risk(store: Store, value: int, **options: object) -> str:
    return commit_changes(
        store, [UpsertRecord("Supplier", "S-1001", {"risk_score": value})], **options
    ).id


def part_cost(store: Store, cost: str, **options: object) -> str:
    return commit_changes(
        store, [UpsertRecord("Part", "P-10001", {"unit_cost": cost})], **options
    ).id


async def test_the_example_request_answers_every_member(
    http: httpx.AsyncClient, supply: Store
) -> None:
    since = supply.log("supply")[0].id
    made = risk(supply, 42)
    answer = await http.get(CHANGES, params={"since": since})
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) == {"domain", "branch", "revision", "events", "next_since", "more"}
    assert (body["domain"], body["branch"], body["revision"]) == ("supply", "main", made)
    [event] = body["events"]
    assert event == supply.events("supply")[-1]
    assert set(event) == {
        "sequence", "type", "domain", "branch", "revision", "parents", "generation", "author",
        "message", "origin", "stats", "created_at", "kinds", "relations", "schema_changed",
        "keys", "keys_truncated",
    }  # fmt: skip
    assert (body["next_since"], body["more"]) == (made, False)
    assert answer.headers["Lorebase-Revision"] == made


async def test_pages_follow_next_since_until_more_is_false(
    http: httpx.AsyncClient, supply: Store
) -> None:
    since = supply.log("supply")[0].id
    made = [risk(supply, value) for value in range(3)]
    first = (await http.get(CHANGES, params={"since": since, "limit": 2})).json()
    assert [event["revision"] for event in first["events"]] == made[:2]
    assert first["more"] is True
    second = (await http.get(CHANGES, params={"since": first["next_since"], "limit": 2})).json()
    assert [event["revision"] for event in second["events"]] == made[2:]
    assert (second["next_since"], second["more"]) == (made[2], False)


async def test_kinds_and_no_since(http: httpx.AsyncClient, supply: Store) -> None:
    since = supply.log("supply")[0].id
    part = part_cost(supply, "1.25")
    risk(supply, 7)
    only = (await http.get(CHANGES, params={"since": since, "kinds": "Part"})).json()
    assert [event["revision"] for event in only["events"]] == [part]
    latest = (await http.get(CHANGES, params={"limit": 1})).json()
    assert [event["revision"] for event in latest["events"]] == [supply.log("supply")[0].id]
    assert latest["more"] is False


async def test_a_since_off_the_history_or_too_far_behind_is_409(
    http: httpx.AsyncClient, supply: Store
) -> None:
    supply.create_branch("supply", "work", created_by="usr_tester")
    other = risk(supply, 5, branch="work")
    document = assert_problem(
        await http.get(CHANGES, params={"since": other}), 409, "resync-required"
    )
    assert "context pack" in str(document["detail"])
    before = supply.log("supply")[0].id
    for value in range(6):
        risk(supply, value)
    document = assert_problem(
        await http.get(CHANGES, params={"since": before}), 409, "resync-required"
    )
    assert "max_scan" in str(document["detail"])


async def test_an_unchanged_page_is_304(http: httpx.AsyncClient, supply: Store) -> None:
    since = supply.log("supply")[0].id
    first = await http.get(CHANGES, params={"since": since})
    again = await http.get(
        CHANGES, params={"since": since}, headers={"If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304
    risk(supply, 9)
    moved = await http.get(
        CHANGES, params={"since": since}, headers={"If-None-Match": first.headers["ETag"]}
    )
    assert moved.status_code == 200
    assert len(moved.json()["events"]) == 1


async def test_bad_input_is_a_problem_document(http: httpx.AsyncClient) -> None:
    assert_problem(await http.get(CHANGES, params={"limit": 0}), 422, "invalid-input")
    assert_problem(await http.get(CHANGES, params={"limit": 501}), 422, "invalid-input")
    document = assert_problem(
        await http.get(CHANGES, params={"kinds": "Supplir"}), 422, "invalid-input"
    )
    assert "Supplier" in str(document["issues"])
    assert_problem(
        await http.get(CHANGES, params={"since": "zz-not-a-rev"}), 404, "revision-not-found"
    )
    assert_problem(await http.get(f"{SUPPLY}/branches/nope/changes"), 404, "branch-not-found")


async def test_a_grant_narrowed_to_kinds_is_history_forbidden(keeper: FastAPI, keys: Keys) -> None:
    async with client_of(keeper) as client:
        narrowed = await client.get(CHANGES, headers=Keys.header(keys.supplier))
        assert_problem(narrowed, 403, "history-forbidden")
        viewer = await client.get(CHANGES, headers=Keys.header(keys.viewer))
        assert viewer.status_code == 200
        assert_problem(await client.get(CHANGES), 401, "unauthorized")


async def test_the_second_domain(store: Store, keeper_settings: Settings) -> None:
    import_directory(store, LIBRARY)
    key = grant_key(store, "usr_reader", domain="library", role="viewer")
    app = create_app(keeper_settings, store=store)
    async with client_of(app, Keys.header(key)) as client:
        answer = await client.get("/api/v1/domains/library/branches/main/changes")
    assert answer.status_code == 200
    assert {event["domain"] for event in answer.json()["events"]} == {"library"}
