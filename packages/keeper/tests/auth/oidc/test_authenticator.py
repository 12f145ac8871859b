"""OIDC bearer tokens and sign-in against a real OpenID Connect provider on loopback.

Tokens come from the provider (`oidc_provider`, tests/oidc) through its code flow, driven with
httpx; tokens a provider would never issue (expired, for another audience, ...) are signed here
with the provider's own key, or a key it does not publish. Keeper runs in process on the supply
example, both backends.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi import FastAPI
from packages.keeper.tests.conftest import client_of
from pydantic import ValidationError

from lorebase_core.errors import PrincipalNotFound, SignInUnavailable, Unauthorized, UnsafeSettings
from lorebase_keeper.app import create_app
from lorebase_keeper.auth.authenticate import Authenticator
from lorebase_keeper.testing import (
    OIDC_AUDIENCE,
    OIDC_REDIRECT_URI,
    OidcProvider,
    assert_problem,
    grant_key,
    serve_in_thread,
)
from lorebase_platform.settings import OidcSettings, Settings
from lorebase_store import Store

SUPPLY = "/api/v1/domains/supply"
WHOAMI = "/api/v1/auth/whoami"
RECORDS = f"{SUPPLY}/kinds/Supplier/records"


def oidc_settings(issuer: str, *, mode: str = "oidc", **oidc: Any) -> Settings:
    return Settings(
        keeper={
            "auth": {
                "mode": mode,
                "authz": {"grants_cache_ttl_s": 0},
                "oidc": {
                    "issuer": issuer,
                    "client_id": "lorebase-web",
                    "audience": [OIDC_AUDIENCE],
                    "redirect_uris": [OIDC_REDIRECT_URI],
                    "groups_claim": "groups",
                    "groups": {"supply-reviewers": [{"domain": "supply", "role": "viewer"}]},
                    "timeout_s": 2,
                    **oidc,
                },
            }
        }
    )


@contextmanager
def oidc_keeper(settings: Settings, store: Store) -> Iterator[FastAPI]:
    """Keeper on `store`, its connections to the issuer closed after (the in-process client runs
    no lifespan, which would close them)."""
    app = create_app(settings, store=store)
    try:
        yield app
    finally:
        app.state.keeper.authenticator.close()


@pytest.fixture
def keeper(store: Store, oidc_provider: OidcProvider) -> Iterator[FastAPI]:
    """Keeper in auth mode oidc on `store` (the supply example only where a test asks for it)."""
    with oidc_keeper(oidc_settings(oidc_provider.issuer), store) as app:
        yield app


@pytest.fixture
def http_headers() -> dict[str, str]:
    """`http` sends no credential: each request names its caller."""
    return {}


def exists(store: Store, principal_id: str) -> bool:
    try:
        store.principal(principal_id)
    except PrincipalNotFound:
        return False
    return True


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _segment(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


# -- tokens the provider issues ------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_token_of_the_provider_reads_whoami_and_a_domain_once_granted(
    http: httpx.AsyncClient, oidc_provider: OidcProvider, supply: Store
) -> None:
    token = oidc_provider.access_token("carol")
    answer = await http.get(WHOAMI, headers=bearer(token))
    assert answer.status_code == 200
    assert answer.json() == {
        "principal": "carol",
        "type": "user",
        "authenticated_by": "oidc",
        "grants": [],
    }
    # first sign-in made the principal, with no grants: the Domain is not there for it
    made = supply.principal("carol")
    assert (made.type, made.display_name) == ("user", "carol")
    assert supply.grants("carol") == []
    assert_problem(await http.get(RECORDS, headers=bearer(token)), 404, "domain-not-found")
    supply.add_grant("carol", domain="supply", role="viewer")
    read = await http.get(RECORDS, headers=bearer(token))
    assert read.status_code == 200, read.text
    # the binding names the principal from now on
    assert [(i.subject, i.principal_id) for i in supply.oidc_identities()] == [("carol", "carol")]


@pytest.mark.anyio
async def test_the_groups_claim_gives_the_grants_of_its_group(
    http: httpx.AsyncClient, oidc_provider: OidcProvider, supply: Store
) -> None:
    token = oidc_provider.access_token("alice")
    answer = await http.get(WHOAMI, headers=bearer(token))
    assert [(g["domain"], g["role"]) for g in answer.json()["grants"]] == [("supply", "viewer")]
    assert supply.grants("alice") == []  # not stored: it holds while the token names the group
    read = await http.get(RECORDS, headers=bearer(token))
    assert read.status_code == 200, read.text


@pytest.mark.anyio
async def test_api_key_and_oidc_mode_takes_both(store: Store, oidc_provider: OidcProvider) -> None:
    key = grant_key(store, "usr_keyed")
    settings = oidc_settings(oidc_provider.issuer, mode="api_key+oidc")
    with oidc_keeper(settings, store) as app:
        async with client_of(app) as http:
            by_key = await http.get(WHOAMI, headers=bearer(key))
            by_token = await http.get(WHOAMI, headers=bearer(oidc_provider.access_token("bob")))
    assert by_key.json()["authenticated_by"] == "api_key"
    assert by_token.json()["principal"] == "bob"
    assert by_token.json()["authenticated_by"] == "oidc"


# -- tokens Keeper refuses -----------------------------------------------------------------------


def _hs256_with_public_key(provider: OidcProvider, claims: dict[str, Any]) -> str:
    assert provider.signing_key is not None
    public = provider.signing_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    head = _segment({"alg": "HS256", "typ": "JWT", "kid": provider.kid})
    body = _segment(claims)
    signature = hmac.new(public, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


def _tampered(provider: OidcProvider, claims: dict[str, Any]) -> str:
    head, _, signature = provider.access_token("erin").split(".")
    return f"{head}.{_segment({**claims, 'sub': 'erin'})}.{signature}"


def _unknown_key(provider: OidcProvider, claims: dict[str, Any]) -> str:
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return jwt.encode(claims, stranger, algorithm="RS256", headers={"kid": "not-published"})


REFUSALS = [
    pytest.param(
        lambda p, c: p.sign({**c, "exp": int(time.time()) - 3600, "iat": int(time.time()) - 7200}),
        "has expired",
        id="expired",
    ),
    pytest.param(
        lambda p, c: p.sign({**c, "nbf": int(time.time()) + 3600}),
        "not yet valid",
        id="not-yet-valid",
    ),
    pytest.param(
        lambda p, c: p.sign({**c, "iat": int(time.time()) + 3600}),
        "not yet valid",
        id="issued-in-the-future",
    ),
    pytest.param(lambda p, c: p.sign({**c, "aud": "someone-else"}), "another audience", id="aud"),
    pytest.param(
        lambda p, c: p.sign({**c, "iss": "http://127.0.0.1:1"}), "another issuer", id="iss"
    ),
    pytest.param(_tampered, "signature does not verify", id="tampered-payload"),
    pytest.param(
        lambda p, c: f"{_segment({'alg': 'none', 'typ': 'JWT'})}.{_segment(c)}.",
        "algorithm 'none'",
        id="alg-none",
    ),
    pytest.param(_hs256_with_public_key, "algorithm 'HS256'", id="hs256-with-the-public-key"),
    pytest.param(_unknown_key, "unknown kid", id="unknown-kid"),
    pytest.param(
        lambda p, c: p.sign({key: value for key, value in c.items() if key != "exp"}),
        "no 'exp' claim",
        id="no-exp",
    ),
    pytest.param(
        lambda p, c: p.sign({key: value for key, value in c.items() if key != "sub"}),
        "no 'sub' claim",
        id="no-sub",
    ),
    pytest.param(
        lambda p, c: p.sign(c, headers={"alg": "RS256", "kid": p.kid}).replace(".", "..", 1),
        "not a well-formed JWT",
        id="malformed",
    ),
    pytest.param(
        lambda p, c: p.sign({**c, "sub": "9lives"}),
        "does not make a principal id",
        id="claim-not-a-principal-id",
    ),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("make", "detail"), REFUSALS)
async def test_a_bad_token_is_refused_saying_which_check_failed(
    http: httpx.AsyncClient, oidc_provider: OidcProvider, store: Store, make: Any, detail: str
) -> None:
    token = make(oidc_provider, oidc_provider.claims("mallory"))
    problem = assert_problem(await http.get(WHOAMI, headers=bearer(token)), 401, "unauthorized")
    assert detail in str(problem["detail"])
    assert token not in json.dumps(problem)
    assert not exists(store, "mallory")  # nothing written


@pytest.mark.anyio
async def test_a_claim_naming_a_principal_with_api_keys_takes_it_over_not(
    http: httpx.AsyncClient, oidc_provider: OidcProvider, store: Store
) -> None:
    store.ensure_principal("dave")
    store.create_key("dave")
    token = oidc_provider.access_token("dave")
    problem = assert_problem(await http.get(WHOAMI, headers=bearer(token)), 401, "unauthorized")
    assert "lorebase principal link-oidc dave" in str(problem["detail"])
    assert store.oidc_identities() == []
    # an administrator links it: then the token is dave
    store.link_oidc_identity("dave", issuer=oidc_provider.issuer, subject="dave")
    assert (await http.get(WHOAMI, headers=bearer(token))).json()["principal"] == "dave"


@pytest.mark.anyio
async def test_a_claim_naming_another_identitys_principal_is_refused(
    http: httpx.AsyncClient, oidc_provider: OidcProvider, store: Store
) -> None:
    first = await http.get(WHOAMI, headers=bearer(oidc_provider.access_token("erin")))
    assert first.json()["principal"] == "erin"
    # sub "Erin" makes the principal id "erin" too: another identity, refused
    colliding = oidc_provider.sign(oidc_provider.claims("Erin"))
    problem = assert_problem(await http.get(WHOAMI, headers=bearer(colliding)), 401, "unauthorized")
    assert "bound to another identity" in str(problem["detail"])
    assert len(store.oidc_identities()) == 1


# -- the issuer's keys ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_rotated_signing_key_is_picked_up_without_restarting_keeper(
    http: httpx.AsyncClient, oidc_provider: OidcProvider
) -> None:
    before = oidc_provider.access_token("frank")
    assert (await http.get(WHOAMI, headers=bearer(before))).status_code == 200
    try:
        oidc_provider.restart(rotate=True)
        after = oidc_provider.access_token("frank")
        assert jwt.get_unverified_header(after)["kid"] != jwt.get_unverified_header(before)["kid"]
        answer = await http.get(WHOAMI, headers=bearer(after))
        assert answer.status_code == 200, answer.text
        # a second unknown kid right after does not read the keys again (no refetch storm):
        # with the issuer down it is refused as unknown, not 502
        oidc_provider.stop()
        stranger = _unknown_key(oidc_provider, oidc_provider.claims("frank"))
        problem = assert_problem(
            await http.get(WHOAMI, headers=bearer(stranger)), 401, "unauthorized"
        )
        assert "unknown kid" in str(problem["detail"])
    finally:
        oidc_provider.restart()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.anyio
async def test_an_issuer_that_is_down_is_a_502_naming_it(
    store: Store, oidc_provider: OidcProvider
) -> None:
    issuer = f"http://127.0.0.1:{_closed_port()}"
    app = create_app(oidc_settings(issuer), store=store)
    token = oidc_provider.sign(oidc_provider.claims("gina", iss=issuer))
    async with client_of(app) as http:
        problem = assert_problem(
            await http.get(WHOAMI, headers=bearer(token)), 502, "identity-provider-unavailable"
        )
        assert issuer in str(problem["detail"])
        assert token not in json.dumps(problem)
        down = assert_problem(
            await http.get("/api/v1/auth/oidc"), 502, "identity-provider-unavailable"
        )
        assert issuer in str(down["detail"])


@pytest.mark.anyio
async def test_a_discovery_document_of_another_issuer_is_refused(
    store: Store, oidc_provider: OidcProvider
) -> None:
    issuer = oidc_provider.issuer.replace("127.0.0.1", "localhost")
    token = oidc_provider.sign(oidc_provider.claims("gina", iss=issuer))
    with oidc_keeper(oidc_settings(issuer), store) as app:
        async with client_of(app) as http:
            answer = await http.get(WHOAMI, headers=bearer(token))
    problem = assert_problem(answer, 502, "identity-provider-unavailable")
    assert "set keeper.auth.oidc.issuer to exactly" in str(problem["detail"])


# -- how to sign in: GET /api/v1/auth/oidc --------------------------------------------------------


@pytest.mark.anyio
async def test_auth_oidc_tells_clients_how_to_sign_in_without_a_credential(
    store: Store, oidc_provider: OidcProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOREBASE_TEST_OIDC_SECRET", "s3cret-value")
    settings = oidc_settings(
        oidc_provider.issuer, client_secret="secret://env/LOREBASE_TEST_OIDC_SECRET"
    )
    with oidc_keeper(settings, store) as app:
        async with client_of(app) as http:
            answer = await http.get("/api/v1/auth/oidc")
            document = (await http.get("/openapi.json")).json()
    assert answer.status_code == 200
    assert answer.json() == {
        "issuer": oidc_provider.issuer,
        "client_id": "lorebase-web",
        "authorization_endpoint": f"{oidc_provider.issuer}/auth",
        "token_endpoint": f"{oidc_provider.issuer}/token",
        "device_authorization_endpoint": f"{oidc_provider.issuer}/device/auth",
        "scopes": ["openid", "profile", "email"],
        "redirect_uris": [OIDC_REDIRECT_URI],
        "audience": [OIDC_AUDIENCE],
    }
    assert "s3cret" not in answer.text
    schemes = document["components"]["securitySchemes"]
    assert sorted(schemes) == ["oidc", "session"]  # mode oidc takes no API keys
    assert schemes["oidc"]["type"] == "openIdConnect"
    assert schemes["oidc"]["openIdConnectUrl"] == (
        f"{oidc_provider.issuer}/.well-known/openid-configuration"
    )
    assert document["paths"]["/api/v1/auth/oidc"]["get"]["security"] == []


@pytest.mark.anyio
async def test_auth_oidc_is_not_found_in_api_key_mode(store: Store) -> None:
    app = create_app(Settings(keeper={"auth": {"mode": "api_key"}}), store=store)
    async with client_of(app) as http:
        assert_problem(await http.get("/api/v1/auth/oidc"), 404, "not-found")


# -- settings ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("oidc", "detail"),
    [
        pytest.param({}, "keeper.auth.oidc.issuer and keeper.auth.oidc.client_id", id="unset"),
        pytest.param({"issuer": "https://id.example"}, "client_id", id="no-client-id"),
        pytest.param(
            {"issuer": "http://id.example", "client_id": "k"}, "must be an https URL", id="http"
        ),
    ],
)
def test_an_oidc_mode_without_an_issuer_and_client_id_does_not_start(
    store: Store, oidc: dict[str, Any], detail: str
) -> None:
    settings = Settings(keeper={"auth": {"mode": "api_key+oidc", "oidc": oidc}})
    with pytest.raises(UnsafeSettings, match=detail):
        create_app(settings, store=store)


@pytest.mark.parametrize("algorithm", ["none", "HS256", "HS512", "rs256"])
def test_settings_refuse_none_and_hmac_algorithms(algorithm: str) -> None:
    with pytest.raises(ValidationError, match="never accepted"):
        OidcSettings(algorithms=["RS256", algorithm])


# -- the code flow: oidc_sign_in -----------------------------------------------------------------


def test_oidc_sign_in_exchanges_a_code_for_the_principal_and_its_groups(
    store: Store, oidc_provider: OidcProvider
) -> None:
    authenticator = Authenticator(oidc_settings(oidc_provider.issuer), store)
    verifier = secrets.token_urlsafe(48)
    code = oidc_provider.authorization_code("alice", code_verifier=verifier, nonce="n-42")
    signed_in = authenticator.oidc_sign_in(
        code=code, code_verifier=verifier, redirect_uri=OIDC_REDIRECT_URI, nonce="n-42"
    )
    assert signed_in.principal_id == "alice"
    assert signed_in.claims == {"groups": ["supply-reviewers"]}
    assert authenticator.oidc is not None
    grants = authenticator.oidc.session_grants("alice", signed_in.claims)
    assert [(grant.domain, grant.role) for grant in grants] == [("supply", "viewer")]
    # a code works once
    with pytest.raises(Unauthorized, match="refused the sign-in code"):
        authenticator.oidc_sign_in(
            code=code, code_verifier=verifier, redirect_uri=OIDC_REDIRECT_URI, nonce="n-42"
        )
    authenticator.close()


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        pytest.param({"redirect_uri": "http://evil.test/cb"}, "not one of", id="redirect-uri"),
        pytest.param({"code_verifier": "x" * 50}, "refused the sign-in code", id="verifier"),
        pytest.param({"nonce": "another"}, "nonce is not the sign-in's", id="nonce"),
        pytest.param({"code": "made-up"}, "refused the sign-in code", id="code"),
    ],
)
def test_oidc_sign_in_refuses_what_does_not_match_the_sign_in(
    store: Store, oidc_provider: OidcProvider, change: dict[str, str], detail: str
) -> None:
    authenticator = Authenticator(oidc_settings(oidc_provider.issuer), store)
    verifier = secrets.token_urlsafe(48)
    code = oidc_provider.authorization_code("henry", code_verifier=verifier, nonce="n-1")
    request = {
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": OIDC_REDIRECT_URI,
        "nonce": "n-1",
        **change,
    }
    with pytest.raises(Unauthorized, match=detail) as refused:
        authenticator.oidc_sign_in(**request)
    assert code not in str(refused.value)
    assert not exists(store, "henry")
    authenticator.close()


def test_oidc_sign_in_is_unavailable_without_oidc(store: Store) -> None:
    authenticator = Authenticator(Settings(), store)
    with pytest.raises(SignInUnavailable, match=r"keeper\.auth\.mode oidc"):
        authenticator.oidc_sign_in(code="c", code_verifier="v", redirect_uri="r")


# -- the code flow end to end: POST /api/v1/auth/session ----------------------------------------


def test_the_code_flow_makes_a_browser_session_over_real_http(
    supply: Store, oidc_provider: OidcProvider
) -> None:
    settings = oidc_settings(oidc_provider.issuer)
    settings.keeper.auth.sessions.cookie_secure = False  # plain http on loopback
    app = create_app(settings, store=supply)
    verifier = secrets.token_urlsafe(48)
    nonce = secrets.token_urlsafe(12)
    with serve_in_thread(app) as url, httpx.Client(base_url=url) as browser:
        code = oidc_provider.authorization_code("alice", code_verifier=verifier, nonce=nonce)
        signed_in = browser.post(
            "/api/v1/auth/session",
            json={
                "code": code,
                "code_verifier": verifier,
                "redirect_uri": OIDC_REDIRECT_URI,
                "nonce": nonce,
            },
        )
        assert signed_in.status_code == 201, signed_in.text
        assert signed_in.json()["principal"] == "alice"
        assert signed_in.json()["method"] == "oidc"
        assert code not in signed_in.text
        whoami = browser.get(WHOAMI)
        assert whoami.json()["principal"] == "alice"
        assert [(g["domain"], g["role"]) for g in whoami.json()["grants"]] == [("supply", "viewer")]
        assert browser.get(RECORDS).status_code == 200
        # the same code twice: refused, and no second session
        again = browser.post(
            "/api/v1/auth/session",
            json={"code": code, "code_verifier": verifier, "redirect_uri": OIDC_REDIRECT_URI},
        )
        assert_problem(again, 401, "unauthorized")
