"""POST /resolve through Keeper: candidates, scope, misses, ETags and bad input (both backends)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from lorebase_core.changes import UpsertRecord
from lorebase_core.schema import load_schema
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import ResolveMiss, Store, record_misses
from lorebase_store.testing import change_request

pytestmark = pytest.mark.anyio

QUESTION = "open purchase orders of high risk suppliers in Poland"


async def resolve(http: httpx.AsyncClient, body: Any, **kwargs: Any) -> httpx.Response:
    return await http.post("/api/v1/domains/supply/resolve", json=body, **kwargs)


def by_target(answer: dict[str, Any]) -> dict[tuple[str, str, str | None], dict[str, Any]]:
    return {
        (candidate["target"], candidate["kind"], candidate.get("attribute")): candidate
        for candidate in answer["candidates"]
    }


def misses(store: Store) -> list[ResolveMiss]:
    with store.reader("supply") as reader:
        return reader.resolve_misses()


async def test_the_example_question_is_grounded(http: httpx.AsyncClient) -> None:
    response = await resolve(http, {"text": QUESTION})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["revision"] == response.headers["Lorebase-Revision"]
    found = by_target(answer)
    assert found[("kind", "PurchaseOrder", None)] == {
        "target": "kind",
        "kind": "PurchaseOrder",
        "score": 1.0,
        "level": "exact",
        "matched": "purchase orders",
        "why": "the name of the Kind PurchaseOrder",
    }
    assert found[("kind", "Supplier", None)]["matched"] == "suppliers"
    assert found[("value", "PurchaseOrder", "status")] == {
        "target": "value",
        "kind": "PurchaseOrder",
        "attribute": "status",
        "type": "enum",
        "values": ["open"],
        "predicate": {"attr": "status", "op": "eq", "value": "open"},
        "score": 1.0,
        "level": "exact",
        "matched": "open",
        "why": "a stored value of PurchaseOrder.status",
        "records": 15,
    }
    high = found[("value", "Supplier", "risk_band")]
    assert (high["values"], high["records"]) == (["high"], 6)
    assert found[("attribute", "Supplier", "risk_score")]["level"] == "synonym"
    # country holds ISO 3166-1 codes (vocabulary: iso3166): Poland is PL
    poland = found[("value", "Supplier", "country")]
    assert (poland["predicate"], poland["level"]) == (
        {"attr": "country", "op": "eq", "value": "PL"},
        "synonym",
    )
    assert poland["why"] == "an ISO 3166-1 country code: 'Poland' is the name of PL"
    assert answer["unmatched"] == ["of", "in"]
    assert answer["skipped"] == [{"level": "embedding", "reason": "other levels matched"}]
    assert answer["truncated"] is False
    scores = [candidate["score"] for candidate in answer["candidates"]]
    assert scores == sorted(scores, reverse=True)
    coverage = answer["coverage"]
    assert coverage["unknown"] == [
        {"phrase": "of", "reason": "term unknown in this Domain"},
        {"phrase": "in", "reason": "term unknown in this Domain"},
    ]
    assert {
        "kind": "Supplier",
        "records": 30,
        "as_of": answer["revision"],
        "approximate": False,
    } in (coverage["kinds"])
    assert {entry["attribute"] for entry in coverage["attributes"]} >= {"status", "risk_band"}


async def test_predicates_of_candidates_are_valid_queries(http: httpx.AsyncClient) -> None:
    answer = (await resolve(http, {"text": "pending orders", "coverage": False})).json()
    assert "coverage" not in answer
    status = by_target(answer)[("value", "PurchaseOrder", "status")]
    assert (status["level"], status["score"], status["matched"]) == ("synonym", 0.95, "pending")
    query = {"kind": "PurchaseOrder", "where": status["predicate"], "limit": 100}
    records = (await http.post("/api/v1/domains/supply/query", json=query)).json()["records"]
    assert len(records) == status["records"]


async def test_a_misspelled_word_is_matched_by_spelling(http: httpx.AsyncClient) -> None:
    answer = (await resolve(http, {"text": "suplliers blocked"})).json()
    supplier = by_target(answer)[("kind", "Supplier", None)]
    assert supplier["level"] == "similar"
    assert 0 < supplier["score"] < 0.95
    assert answer["unmatched"] == []


async def test_sensitive_values_are_never_candidates(
    http: httpx.AsyncClient, supply: Store
) -> None:
    with supply.reader("supply") as reader:
        record = reader.get_record("Supplier", "S-1001")
    assert record is not None
    vat, email = record.values["vat_number"], record.values["contact_email"]
    answer = (await resolve(http, {"text": f"{vat} {email}"})).json()
    assert all(c["target"] != "value" for c in answer["candidates"]), answer["candidates"]


async def test_a_caller_without_clearance_gets_no_sensitive_attribute(
    http: httpx.AsyncClient, keys: Keys
) -> None:
    admin = by_target((await resolve(http, {"text": "vat number"})).json())
    assert ("attribute", "Supplier", "vat_number") in admin
    viewer = (await resolve(http, {"text": "vat number"}, headers=Keys.header(keys.viewer))).json()
    assert ("attribute", "Supplier", "vat_number") not in by_target(viewer)


async def test_a_narrowed_grant_sees_only_its_kinds(http: httpx.AsyncClient, keys: Keys) -> None:
    response = await resolve(http, {"text": QUESTION}, headers=Keys.header(keys.supplier))
    answer = response.json()
    assert {candidate["kind"] for candidate in answer["candidates"]} == {"Supplier"}
    assert "purchase" in answer["unmatched"]


async def test_misses_are_recorded_and_counted(http: httpx.AsyncClient, supply: Store) -> None:
    assert misses(supply) == []
    await resolve(http, {"text": "frobnicated suppliers"})
    again = await resolve(http, {"text": "frobnicated suppliers"})
    # the second answer comes from the cache, and still counts
    [miss] = misses(supply)
    assert (miss.phrase, miss.count) == ("frobnicated", 2)
    assert miss.first_seen_at <= miss.last_seen_at
    await resolve(
        http,
        {"text": "frobnicated suppliers"},
        headers={"If-None-Match": again.headers["ETag"]},
    )
    assert misses(supply)[0].count == 3


async def test_misses_are_not_recorded_when_asked_or_at(
    http: httpx.AsyncClient, supply: Store
) -> None:
    revision = (await resolve(http, {"text": "suppliers"})).json()["revision"]
    await resolve(http, {"text": "frobnicated", "record_misses": False})
    answer = (await resolve(http, {"text": "frobnicated", "at": revision})).json()
    assert answer["unmatched"] == ["frobnicated"]
    assert misses(supply) == []


async def test_misses_are_not_recorded_when_settings_say_so(supply: Store, keys: Keys) -> None:
    settings = Settings(
        keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}},
        read={"resolve": {"record_misses": False}},
    )
    app: FastAPI = create_app(settings, store=supply)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://keeper.test", headers=Keys.header(keys.admin)
    ) as client:
        response = await resolve(client, {"text": "frobnicated"})
    assert response.status_code == 200
    assert misses(supply) == []


async def test_the_same_request_answers_the_same_bytes_and_a_304(
    http: httpx.AsyncClient,
) -> None:
    first = await resolve(http, {"text": QUESTION})
    second = await resolve(http, {"text": QUESTION})
    assert first.content == second.content
    assert first.headers["ETag"] == second.headers["ETag"]
    again = await resolve(
        http, {"text": QUESTION}, headers={"If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304


async def test_the_embedding_level_is_skipped_with_a_reason(http: httpx.AsyncClient) -> None:
    without = (await resolve(http, {"text": "frobnicated"})).json()
    assert without["skipped"] == [
        {"level": "embedding", "reason": "the request has no query_vector"}
    ]
    with_vector = (await resolve(http, {"text": "frobnicated", "query_vector": [0.1, 0.2]})).json()
    assert with_vector["candidates"] == []
    assert with_vector["skipped"] == [
        {"level": "embedding", "reason": "query_vector has 2 numbers, the model 384"}
    ]


async def test_the_embedding_level_needs_an_embedding_model(library: Store) -> None:
    app = create_app(Settings(keeper={"auth": {"mode": "none"}}), store=library)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://k.test") as http:
        body = {"text": "frobnicated", "query_vector": [0.1, 0.2]}
        answer = (await http.post("/api/v1/domains/library/resolve", json=body)).json()
    assert answer["skipped"] == [
        {
            "level": "embedding",
            "reason": "the Domain declares no embedding model (search.embedding)",
        }
    ]


async def test_too_many_candidates_are_truncated(supply: Store, keys: Keys) -> None:
    settings = Settings(
        keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}},
        read={"resolve": {"max_candidates": 2}},
    )
    transport = httpx.ASGITransport(app=create_app(settings, store=supply))
    async with httpx.AsyncClient(
        transport=transport, base_url="http://keeper.test", headers=Keys.header(keys.admin)
    ) as client:
        answer = (await resolve(client, {"text": QUESTION})).json()
    assert len(answer["candidates"]) == 2
    assert answer["truncated"] is True


@pytest.mark.parametrize(
    ("body", "paths"),
    [
        pytest.param({"text": ""}, ["text"], id="empty"),
        pytest.param({"text": "   "}, ["text"], id="blank"),
        pytest.param({"text": "x" * 501}, ["text"], id="too-long"),
        pytest.param({"text": 3}, ["text"], id="text-type"),
        pytest.param({}, ["text"], id="missing"),
        pytest.param(
            {"text": "a", "query_vector": ["a"], "record_misses": "yes"},
            ["query_vector", "record_misses"],
            id="types",
        ),
        pytest.param({"text": "a", "query_vector": []}, ["query_vector"], id="empty-vector"),
        pytest.param({"text": "a", "words": 1}, ["words"], id="unknown-member"),
        pytest.param({"text": "a", "at": 1, "coverage": 0}, ["coverage", "at"], id="more-types"),
    ],
)
async def test_bad_input_is_422_with_paths(
    http: httpx.AsyncClient, body: dict[str, Any], paths: list[str]
) -> None:
    document = assert_problem(await resolve(http, body), 422, "invalid-input")
    issues = document["issues"]
    assert isinstance(issues, list)
    assert sorted(issue["path"] for issue in issues) == sorted(paths)


async def test_a_body_that_is_not_an_object_is_422(http: httpx.AsyncClient) -> None:
    assert_problem(await resolve(http, ["open"]), 422, "invalid-input")


async def test_an_unknown_domain_is_404(http: httpx.AsyncClient) -> None:
    response = await http.post("/api/v1/domains/nowhere/resolve", json={"text": "open"})
    assert_problem(response, 404, "domain-not-found")


GADGETS = """
domain: {name: gadgets}
search:
  embedding: {model: test-3d, dimensions: 3}
kinds:
  Gadget:
    key: [code]
    attributes:
      code: {type: string}
      colour: {type: enum, values: [red, green, blue]}
      secret: {type: enum, values: [alpha, beta], sensitivity: [restricted]}
"""


async def test_the_embedding_level_takes_the_values_of_the_nearest_records(
    store: Store,
) -> None:
    store.commit(
        change_request(schema=load_schema(GADGETS), create_domain=True, domain="gadgets"),
        [
            UpsertRecord("Gadget", None, {"code": "G-1", "colour": "red", "secret": "alpha"}),
            UpsertRecord("Gadget", None, {"code": "G-2", "colour": "blue", "secret": "beta"}),
        ],
    )
    app = create_app(Settings(keeper={"auth": {"mode": "none"}}), store=store)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://k.test") as http:
        vector = "/api/v1/domains/gadgets/kinds/Gadget/records/{key}/vector"
        for key, numbers in (("G-1", [1, 0, 0]), ("G-2", [0, 0, 1])):
            stored = await http.put(
                vector.format(key=key), json={"model": "test-3d", "vector": numbers}
            )
            assert stored.status_code == 200, stored.text
        body = {"text": "zzyzx qwv", "query_vector": [0.1, 0, 0.9], "record_misses": False}
        first = await http.post("/api/v1/domains/gadgets/resolve", json=body)
        assert first.status_code == 200, first.text
        answer = first.json()
        assert answer["skipped"] == []
        nearest = [
            c for c in answer["candidates"] if c["score"] == answer["candidates"][0]["score"]
        ]
        # the nearest Record is G-2: its indexed values (short strings and enums) are offered
        assert {(c["attribute"], c["values"][0]) for c in nearest} == {
            ("code", "G-2"),
            ("colour", "blue"),
        }
        colour = next(c for c in nearest if c["attribute"] == "colour")
        assert colour["level"] == "embedding"
        assert colour["predicate"] == {"attr": "colour", "op": "eq", "value": "blue"}
        assert colour["records"] == 1
        assert all(candidate["attribute"] != "secret" for candidate in answer["candidates"])
        # a new vector changes the answer at the same Revision: the ETag follows the vectors
        await http.put(vector.format(key="G-1"), json={"model": "test-3d", "vector": [0, 0, 1]})
        again = await http.post(
            "/api/v1/domains/gadgets/resolve",
            json=body,
            headers={"If-None-Match": first.headers["ETag"]},
        )
        assert again.status_code == 200


# -- what is kept of the words nothing matched (read.resolve.misses) ---------------------------
IDENTIFYING = (
    "suppliers jan.kowalski@example.com PL5260250995 PL61 1090 1014 0000 0712 1981 2874 "
    "42 3.14 123e4567-e89b-12d3-a456-426614174000"
)


async def test_identifying_words_are_answered_and_never_stored(
    http: httpx.AsyncClient, supply: Store
) -> None:
    response = await resolve(http, {"text": IDENTIFYING})
    assert response.status_code == 200, response.text
    answer = response.json()
    # the caller's own answer names them: only what is kept is narrower
    assert {"PL5260250995", "jan.kowalski", "42"} <= set(answer["unmatched"])
    assert misses(supply) == []


async def test_plain_words_beside_identifying_ones_are_stored(
    http: httpx.AsyncClient, supply: Store
) -> None:
    text = "zorblat quimbly PL5260250995 flurp jan@example.com"
    assert (await resolve(http, {"text": text})).status_code == 200
    assert {miss.phrase for miss in misses(supply)} == {"zorblat quimbly", "flurp"}


async def test_sentences_nothing_matched_are_not_stored(
    http: httpx.AsyncClient, supply: Store
) -> None:
    answer = (await resolve(http, {"text": "zorblat quimbly flurp blarg"})).json()
    assert answer["coverage"]["unknown"][0]["phrase"] == "zorblat quimbly flurp blarg"
    assert misses(supply) == []


def _client(app: FastAPI, key: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(
        transport=transport, base_url="http://keeper.test", headers=Keys.header(key)
    )


async def test_misses_are_capped_per_principal_and_day(supply: Store, keys: Keys) -> None:
    settings = Settings(
        keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}},
        read={"resolve": {"misses": {"max_per_principal_per_day": 2}}},
    )
    app = create_app(settings, store=supply)
    async with _client(app, keys.admin) as admin, _client(app, keys.viewer) as viewer:
        for word in ("zorblat", "quimbly", "flurp", "zorblat"):
            assert (await resolve(admin, {"text": word})).status_code == 200
        assert {miss.phrase: miss.count for miss in misses(supply)} == {
            "zorblat": 1,
            "quimbly": 1,
        }
        # another principal has a cap of its own
        assert (await resolve(viewer, {"text": "flurp"})).status_code == 200
    assert {miss.phrase for miss in misses(supply)} == {"zorblat", "quimbly", "flurp"}


async def test_misses_past_their_retention_are_gone(http: httpx.AsyncClient, supply: Store) -> None:
    long_ago = datetime.now(UTC) - timedelta(days=31)
    record_misses(
        supply.engine,
        supply.domain("supply").id,
        ["zorblat", "quimbly"],
        principal_id="usr_admin",
        limits=Settings().read.resolve.misses,
        now=long_ago,
    )
    assert (await resolve(http, {"text": "zorblat suppliers"})).status_code == 200
    [miss] = misses(supply)
    # quimbly is deleted; zorblat expired too and starts again from this request
    assert (miss.phrase, miss.count) == ("zorblat", 1)
    assert miss.first_seen_at > long_ago.isoformat()
