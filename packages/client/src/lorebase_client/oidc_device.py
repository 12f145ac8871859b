"""Signing the CLI in with OIDC: the device authorization grant (RFC 8628), refresh, revocation.

`lorebase login --oidc` reads how to sign in from Keeper (`GET /api/v1/auth/oidc`: the issuer,
the CLI's client id, the device authorization and token endpoints, scopes and audience), asks
the device authorization endpoint for a code, shows the person the verification URL and the
code, and polls the token endpoint as RFC 8628 says: every `interval` seconds, five more after
`slow_down`, until the tokens come, the person refuses (`access_denied`) or the code expires
(`expired_token`, or its `expires_in` passed). The access token is then the profile's bearer
credential; `fresh_profile` refreshes it with the refresh token before a command uses it, once
it is expired or about to be, and `revoke_token` revokes a refresh token at the issuer's
revocation endpoint (RFC 7009) on `lorebase logout`.

Only the addresses Keeper names (its issuer's endpoints) and the issuer's discovery document are
ever called. Error messages name the issuer's error code, never a token or a code.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from lorebase_client.profiles import Profile, ProfileError, save_profile

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
REFRESH_MARGIN_S = 30
"""An access token this close to its expiry is refreshed before a command uses it."""
SLOW_DOWN_S = 5
"""What `slow_down` adds to the polling interval (RFC 8628, section 3.5)."""
DEFAULT_INTERVAL_S = 5


class SignInError(Exception):
    """A sign-in that did not finish: refused, expired, or an issuer that answered otherwise."""


@dataclass(frozen=True, kw_only=True)
class OidcConfiguration:
    """How the CLI signs in, as Keeper's GET /api/v1/auth/oidc says."""

    issuer: str
    client_id: str
    device_authorization_endpoint: str
    token_endpoint: str
    scopes: tuple[str, ...]
    audience: str | None = None
    revocation_endpoint: str | None = None

    @classmethod
    def from_answer(cls, answer: dict[str, Any]) -> OidcConfiguration:
        """The configuration of Keeper's answer.

        Raises:
            SignInError: Keeper's OIDC sign-in has no client id or no device flow.
        """
        device = answer.get("device_authorization_endpoint")
        token = answer.get("token_endpoint")
        client_id = answer.get("client_id")
        issuer = answer.get("issuer")
        if not (isinstance(device, str) and isinstance(token, str) and device and token):
            raise SignInError(
                "Keeper's identity provider offers no device flow (no "
                "device_authorization_endpoint): sign in with --api-key instead"
            )
        if not isinstance(client_id, str) or not client_id or not isinstance(issuer, str):
            raise SignInError(
                "Keeper names no OIDC client id (keeper.auth.oidc.client_id): ask its "
                "administrator, or sign in with --api-key"
            )
        scopes = answer.get("scopes") or ["openid"]
        audience = answer.get("audience")
        if isinstance(audience, list):
            audience = audience[0] if audience else None
        revocation = answer.get("revocation_endpoint")
        return cls(
            issuer=issuer,
            client_id=client_id,
            device_authorization_endpoint=device,
            token_endpoint=token,
            scopes=tuple(str(scope) for scope in scopes),
            audience=audience if isinstance(audience, str) else None,
            revocation_endpoint=revocation if isinstance(revocation, str) else None,
        )


@dataclass(frozen=True, kw_only=True)
class DeviceCode:
    """The device authorization endpoint's answer: what the person enters, and where."""

    device_code: str
    user_code: str
    verification_uri: str
    verification_uri_complete: str | None
    expires_in: int
    interval: int


@dataclass(frozen=True, kw_only=True)
class TokenSet:
    access_token: str
    refresh_token: str | None
    expires_at: int | None
    """Seconds since the epoch (None: the issuer did not say)."""


def identity_provider_client() -> httpx.Client:
    """An httpx client for the identity provider's endpoints (each call waits 10 s at most)."""
    return httpx.Client(timeout=10.0)


def discover_revocation_endpoint(http: httpx.Client, issuer: str) -> str | None:
    """The revocation endpoint of the issuer's discovery document (None when it has none)."""
    try:
        answer = http.get(issuer.rstrip("/") + "/.well-known/openid-configuration")
        document = answer.json() if answer.status_code == 200 else {}
    except (httpx.HTTPError, ValueError):
        return None
    endpoint = document.get("revocation_endpoint") if isinstance(document, dict) else None
    return endpoint if isinstance(endpoint, str) else None


def request_device_code(http: httpx.Client, config: OidcConfiguration) -> DeviceCode:
    """Ask the issuer for a device code and the code the person enters.

    Raises:
        SignInError: the issuer refused, or answered something that is not a device code.
    """
    form = {"client_id": config.client_id, "scope": " ".join(config.scopes)}
    if config.audience:
        form["resource"] = config.audience
    answer = _form_post(http, config.device_authorization_endpoint, form)
    try:
        return DeviceCode(
            device_code=str(answer["device_code"]),
            user_code=str(answer["user_code"]),
            verification_uri=str(answer["verification_uri"]),
            verification_uri_complete=answer.get("verification_uri_complete"),
            expires_in=int(answer.get("expires_in", 600)),
            interval=int(answer.get("interval", DEFAULT_INTERVAL_S)),
        )
    except (KeyError, TypeError, ValueError):
        raise SignInError(
            "the identity provider's device authorization answer lacks a device code"
        ) from None


def poll_for_tokens(
    http: httpx.Client,
    config: OidcConfiguration,
    device: DeviceCode,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> TokenSet:
    """Poll the token endpoint until the person approved the device (RFC 8628, section 3.4).

    Raises:
        SignInError: refused (`access_denied`), expired (`expired_token`, or `expires_in`
            passed), or another error of the issuer.
    """
    deadline = clock() + device.expires_in
    interval = max(device.interval, 1)
    form = {
        "grant_type": DEVICE_GRANT,
        "device_code": device.device_code,
        "client_id": config.client_id,
    }
    while True:
        answer = http.post(config.token_endpoint, data=form)
        document = _json(answer)
        if answer.status_code == 200:
            return _token_set(document)
        error = document.get("error")
        if error == "authorization_pending":
            pass
        elif error == "slow_down":
            interval += SLOW_DOWN_S
        elif error == "access_denied":
            raise SignInError("the sign-in was refused at the identity provider")
        elif error == "expired_token":
            raise SignInError("the code expired before it was entered: run `lorebase login` again")
        else:
            raise SignInError(_issuer_error(answer, document))
        if clock() + interval > deadline:
            raise SignInError("the code expired before it was entered: run `lorebase login` again")
        sleep(interval)


def refresh_tokens(
    http: httpx.Client, token_endpoint: str, client_id: str, refresh_token: str
) -> TokenSet:
    """New tokens for a refresh token (the issuer may rotate the refresh token too).

    Raises:
        SignInError: the issuer refused the refresh token (expired or revoked).
    """
    answer = http.post(
        token_endpoint,
        data={
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": client_id,
        },
    )
    document = _json(answer)
    if answer.status_code != 200:
        raise SignInError(
            _issuer_error(answer, document) + ": the sign-in ended, run `lorebase login` again"
        )
    tokens = _token_set(document)
    if tokens.refresh_token is None:  # the issuer kept the one we have
        return TokenSet(
            access_token=tokens.access_token,
            refresh_token=refresh_token,
            expires_at=tokens.expires_at,
        )
    return tokens


def revoke_token(http: httpx.Client, endpoint: str, client_id: str, token: str) -> bool:
    """Revoke a refresh token (RFC 7009); whether the issuer took the request."""
    try:
        answer = http.post(
            endpoint,
            data={"token": token, "token_type_hint": "refresh_token", "client_id": client_id},
        )
    except httpx.HTTPError:
        return False
    return answer.status_code == 200


def token_members(config: OidcConfiguration, tokens: TokenSet) -> dict[str, str | int | None]:
    """The profile members of a fresh OIDC sign-in (the API key is removed)."""
    return {
        "api_key": None,
        "oidc_access_token": tokens.access_token,
        "oidc_refresh_token": tokens.refresh_token,
        "oidc_expires_at": tokens.expires_at,
        "oidc_token_endpoint": config.token_endpoint,
        "oidc_client_id": config.client_id,
        "oidc_revocation_endpoint": config.revocation_endpoint,
    }


def needs_refresh(profile: Profile, now: float) -> bool:
    return (
        profile.api_key is None
        and profile.oidc_access_token is not None
        and profile.oidc_refresh_token is not None
        and profile.oidc_expires_at is not None
        and now >= profile.oidc_expires_at - REFRESH_MARGIN_S
    )


def fresh_profile(profile: Profile, path: Path, *, now: float | None = None) -> Profile:
    """`profile`, its access token refreshed and saved when it is expired or about to be.

    Raises:
        ProfileError: the refresh failed (say how to sign in again), or the profile has no
            token endpoint to refresh at.
    """
    moment = time.time() if now is None else now
    if not needs_refresh(profile, moment):
        return profile
    if profile.oidc_token_endpoint is None or profile.oidc_client_id is None:
        raise ProfileError(
            f"profile {profile.name!r}: its OIDC token expired and it names no token endpoint: "
            f"run `lorebase login --oidc --profile {profile.name}` again"
        )
    assert profile.oidc_refresh_token is not None  # needs_refresh checked it
    try:
        with identity_provider_client() as http:
            tokens = refresh_tokens(
                http,
                profile.oidc_token_endpoint,
                profile.oidc_client_id,
                profile.oidc_refresh_token,
            )
    except (SignInError, httpx.HTTPError) as error:
        raise ProfileError(
            f"profile {profile.name!r}: cannot refresh its OIDC token ({error}); run "
            f"`lorebase login --oidc --profile {profile.name}` again"
        ) from None
    members = {
        "oidc_access_token": tokens.access_token,
        "oidc_refresh_token": tokens.refresh_token,
        "oidc_expires_at": tokens.expires_at,
    }
    save_profile(profile.name, members, path)
    return Profile(
        name=profile.name,
        url=profile.url,
        domain=profile.domain,
        oidc_access_token=tokens.access_token,
        oidc_refresh_token=tokens.refresh_token,
        oidc_expires_at=tokens.expires_at,
        oidc_token_endpoint=profile.oidc_token_endpoint,
        oidc_client_id=profile.oidc_client_id,
        oidc_revocation_endpoint=profile.oidc_revocation_endpoint,
    )


def _form_post(http: httpx.Client, url: str, form: dict[str, str]) -> dict[str, Any]:
    answer = http.post(url, data=form)
    document = _json(answer)
    if answer.status_code != 200:
        raise SignInError(_issuer_error(answer, document))
    return document


def _json(answer: httpx.Response) -> dict[str, Any]:
    try:
        document = answer.json()
    except ValueError:
        return {}
    return document if isinstance(document, dict) else {}


def _issuer_error(answer: httpx.Response, document: dict[str, Any]) -> str:
    error = document.get("error")
    code = error if isinstance(error, str) and error.isprintable() and len(error) <= 64 else None
    return f"the identity provider answered {answer.status_code}" + (f" ({code})" if code else "")


def _token_set(document: dict[str, Any]) -> TokenSet:
    access = document.get("access_token")
    if not isinstance(access, str) or not access:
        raise SignInError("the identity provider's token answer holds no access token")
    refresh = document.get("refresh_token")
    expires_in = document.get("expires_in")
    expires_at = (
        int(time.time()) + int(expires_in)
        if isinstance(expires_in, int | float) and not isinstance(expires_in, bool)
        else None
    )
    return TokenSet(
        access_token=access,
        refresh_token=refresh if isinstance(refresh, str) and refresh else None,
        expires_at=expires_at,
    )
