"""Who a caller is, as Keeper tells it: auth mode none, API keys (Bearer and X-API-Key), whoami.

The principals are those of conftest.py: `admin` (admin on supply), `viewer` (viewer, no
clearances), `supplier` (viewer narrowed to Supplier) and `agent` (viewer on main, editor on
agent/*). What a caller may then read is test_authz.py's.
"""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from packages.keeper.tests.conftest import client_of

from lorebase_keeper.app import create_app
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store

SUPPLY = "/api/v1/domains/supply"
VAT_NUMBER = "PL7792438105"


def key_id(key: str) -> str:
    """The key id inside `lbk_<key id>_<secret>`."""
    return key.split("_")[1]


# -- auth mode none ------------------------------------------------------------------------------


@pytest.fixture
def open_keeper(supply: Store) -> FastAPI:
    return create_app(Settings(keeper={"auth": {"mode": "none"}}), store=supply)


@pytest.mark.anyio
async def test_auth_mode_none_makes_every_request_the_local_admin(open_keeper: FastAPI) -> None:
    async with client_of(open_keeper) as http:
        response = await http.get("/api/v1/auth/whoami")
    assert response.status_code == 200
    document = response.json()
    assert document["principal"] == "local-admin"
    assert document["type"] == "user"
    assert document["authenticated_by"] == "none"
    assert [grant["role"] for grant in document["grants"]] == ["admin"]
    assert document["grants"][0]["domain"] == "*"


@pytest.mark.anyio
async def test_auth_mode_none_reads_everything_unmasked_without_a_key(
    open_keeper: FastAPI,
) -> None:
    async with client_of(open_keeper) as http:
        response = await http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001")
    assert response.status_code == 200
    assert response.json()["values"]["vat_number"] == VAT_NUMBER


@pytest.mark.anyio
async def test_auth_mode_none_lists_every_domain(open_keeper: FastAPI) -> None:
    async with client_of(open_keeper) as http:
        response = await http.get("/api/v1/domains")
    assert [domain["name"] for domain in response.json()["domains"]] == ["supply"]


@pytest.mark.anyio
async def test_auth_mode_none_ignores_a_credential(open_keeper: FastAPI) -> None:
    async with client_of(open_keeper, {"Authorization": "Bearer nonsense"}) as http:
        response = await http.get("/api/v1/auth/whoami")
    assert response.json()["principal"] == "local-admin"


# -- API keys ------------------------------------------------------------------------------------

READS = [
    pytest.param("/api/v1/auth/whoami", id="whoami"),
    pytest.param("/api/v1/domains", id="domains"),
    pytest.param(f"{SUPPLY}/schema", id="schema"),
    pytest.param(f"{SUPPLY}/kinds/Supplier/records", id="records"),
    pytest.param(f"{SUPPLY}/kinds/Supplier/records/S-1001", id="record"),
    pytest.param(f"{SUPPLY}/kinds/Supplier/records/S-1001/explain", id="explain"),
    pytest.param(f"{SUPPLY}/branches", id="branches"),
    pytest.param(f"{SUPPLY}/proposals", id="proposals"),
    pytest.param(f"{SUPPLY}/webhooks", id="webhooks"),
    pytest.param(f"{SUPPLY}/branches/main/events", id="events"),
]


@pytest.mark.anyio
@pytest.mark.parametrize("path", READS)
async def test_a_request_without_a_key_is_401_with_www_authenticate(
    keeper: FastAPI, path: str
) -> None:
    async with client_of(keeper) as http:
        response = await http.get(path)
    assert_problem(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.anyio
@pytest.mark.parametrize(
    "credential",
    [
        pytest.param("not-a-key", id="malformed"),
        pytest.param("lbk_000000000000_" + "a" * 43, id="unknown"),
        pytest.param("lbk_", id="prefix-only"),
        pytest.param("lbk_" + "0" * 12 + "_" + "x" * 500, id="overlong-secret"),
    ],
)
async def test_a_malformed_or_unknown_key_is_401(keeper: FastAPI, credential: str) -> None:
    async with client_of(keeper, {"Authorization": f"Bearer {credential}"}) as http:
        response = await http.get(f"{SUPPLY}/schema")
    assert_problem(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.anyio
async def test_a_key_with_a_wrong_secret_is_401(keeper: FastAPI, keys: Keys) -> None:
    tampered = keys.viewer[:-4] + ("aaaa" if not keys.viewer.endswith("aaaa") else "bbbb")
    async with client_of(keeper, Keys.header(tampered)) as http:
        response = await http.get(f"{SUPPLY}/schema")
    assert_problem(response, 401, "unauthorized")


@pytest.mark.anyio
async def test_a_revoked_key_is_401_on_the_next_request(
    keeper: FastAPI, keys: Keys, supply: Store
) -> None:
    async with client_of(keeper, Keys.header(keys.viewer)) as http:
        before = await http.get(f"{SUPPLY}/schema")
        supply.revoke_key(key_id(keys.viewer))
        after = await http.get(f"{SUPPLY}/schema")
    assert before.status_code == 200
    assert_problem(after, 401, "unauthorized")


@pytest.mark.anyio
@pytest.mark.parametrize(
    "authorization",
    [
        pytest.param("Basic dXNyX3ZpZXdlcjpzZWNyZXQ=", id="basic"),
        pytest.param("Token {key}", id="other-scheme"),
        pytest.param("Bearer", id="bearer-without-key"),
        pytest.param("{key}", id="no-scheme"),
    ],
)
async def test_an_authorization_other_than_bearer_is_401(
    keeper: FastAPI, keys: Keys, authorization: str
) -> None:
    header = {"Authorization": authorization.format(key=keys.viewer)}
    async with client_of(keeper, header) as http:
        response = await http.get(f"{SUPPLY}/schema")
    assert_problem(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.anyio
async def test_the_bearer_scheme_is_case_insensitive(keeper: FastAPI, keys: Keys) -> None:
    async with client_of(keeper, {"Authorization": f"bearer {keys.viewer}"}) as http:
        response = await http.get("/api/v1/auth/whoami")
    assert response.json()["principal"] == "usr_viewer"


@pytest.mark.anyio
async def test_the_x_api_key_header_authenticates(keeper: FastAPI, keys: Keys) -> None:
    async with client_of(keeper, {"X-API-Key": keys.viewer}) as http:
        whoami = await http.get("/api/v1/auth/whoami")
        record = await http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001")
    assert whoami.json()["principal"] == "usr_viewer"
    assert whoami.json()["authenticated_by"] == "api_key"
    assert record.status_code == 200


@pytest.mark.anyio
async def test_whoami_lists_principal_type_and_grants(keeper: FastAPI, keys: Keys) -> None:
    async with client_of(keeper, Keys.header(keys.agent)) as http:
        response = await http.get("/api/v1/auth/whoami")
    document = response.json()
    assert document["principal"] == "svc_agent"
    assert document["type"] == "service"
    grants = {grant["branch"]: grant for grant in document["grants"]}
    assert set(grants) == {"main", "agent/*"}
    assert grants["main"]["role"] == "viewer"
    assert grants["main"]["permissions"] == ["data.read"]
    assert grants["agent/*"]["role"] == "editor"
    assert "branch.create" in grants["agent/*"]["permissions"]
    assert all(grant["domain"] == "supply" for grant in document["grants"])


@pytest.mark.anyio
async def test_whoami_shows_the_kinds_of_a_narrowed_grant(keeper: FastAPI, keys: Keys) -> None:
    async with client_of(keeper, Keys.header(keys.supplier)) as http:
        response = await http.get("/api/v1/auth/whoami")
    [grant] = response.json()["grants"]
    assert grant["kinds"] == ["Supplier"]
    assert grant["clearances"] == []
