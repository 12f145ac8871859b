"""The test OpenID Connect provider itself (tests/oidc): what the OIDC tests rely on."""

from __future__ import annotations

import httpx
import jwt

from lorebase_keeper.testing import OIDC_AUDIENCE, OidcProvider


def _verified(provider: OidcProvider, token: str, audience: str) -> dict[str, object]:
    keys = jwt.PyJWKClient(provider.discovery["jwks_uri"])
    key = keys.get_signing_key_from_jwt(token)
    claims: dict[str, object] = jwt.decode(
        token, key.key, algorithms=["RS256"], audience=audience, issuer=provider.issuer
    )
    return claims


def test_code_flow_gives_a_jwt_access_token_for_keeper_and_an_id_token(
    oidc_provider: OidcProvider,
) -> None:
    tokens = oidc_provider.tokens("alice", nonce="n-1")
    access = _verified(oidc_provider, tokens["access_token"], OIDC_AUDIENCE)
    assert access["sub"] == "alice"
    assert access["groups"] == ["supply-reviewers"]
    identity = _verified(oidc_provider, tokens["id_token"], "lorebase-web")
    assert identity["nonce"] == "n-1"
    assert identity["groups"] == ["supply-reviewers"]
    assert identity["email"] == "alice@example.test"


def test_device_flow_signs_the_cli_in(oidc_provider: OidcProvider) -> None:
    device = httpx.post(
        oidc_provider.discovery["device_authorization_endpoint"],
        data={"client_id": "lorebase-cli", "scope": "openid groups"},
    ).json()
    oidc_provider.approve_device(device["user_code"], "bob")
    tokens = httpx.post(
        oidc_provider.discovery["token_endpoint"],
        data={
            "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            "device_code": device["device_code"],
            "client_id": "lorebase-cli",
        },
    ).json()
    access = _verified(oidc_provider, tokens["access_token"], OIDC_AUDIENCE)
    assert access["sub"] == "bob"
    assert access["groups"] == []
    assert "refresh_token" in tokens


def test_restart_with_a_rotated_key_serves_the_new_key() -> None:
    with OidcProvider() as provider:
        before = provider.kid
        provider.restart(rotate=True)
        assert provider.kid != before
        kids = [key["kid"] for key in httpx.get(provider.discovery["jwks_uri"]).json()["keys"]]
        assert kids == [provider.kid]
        token = provider.access_token("carol")
        assert jwt.get_unverified_header(token)["kid"] == provider.kid
