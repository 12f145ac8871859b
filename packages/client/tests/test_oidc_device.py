"""The CLI's OIDC sign-in (oidc_device.py) against the real test provider (tests/oidc).

The person at the verification page is `OidcProvider.approve_device`, driven with httpx through
the provider's development login while the CLI polls; the polling's waits are recorded instead
of slept. The issuer answers the provider cannot be made to give on demand (slow_down,
access_denied, expired_token, an answer without a token) come from a scripted token endpoint.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import jwt
import pytest
from click.testing import CliRunner

from lorebase_client.cli import main
from lorebase_client.oidc_device import (
    DeviceCode,
    OidcConfiguration,
    SignInError,
    discover_revocation_endpoint,
    fresh_profile,
    poll_for_tokens,
    refresh_tokens,
    request_device_code,
    revoke_token,
    token_members,
)
from lorebase_client.profiles import ProfileError, load_profile, save_profile
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import OIDC_AUDIENCE, OidcProvider, serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_store import Store

if TYPE_CHECKING:
    from conftest import LiveKeeper


@pytest.fixture
def config(oidc_provider: OidcProvider) -> OidcConfiguration:
    """What Keeper's GET /api/v1/auth/oidc says of the test provider."""
    discovery = oidc_provider.discovery
    return OidcConfiguration.from_answer(
        {
            "issuer": oidc_provider.issuer,
            "client_id": "lorebase-cli",
            "device_authorization_endpoint": discovery["device_authorization_endpoint"],
            "token_endpoint": discovery["token_endpoint"],
            "scopes": ["openid", "groups"],
            "audience": [OIDC_AUDIENCE],
        }
    )


def _claims(provider: OidcProvider, token: str) -> dict[str, object]:
    key = jwt.PyJWKClient(provider.discovery["jwks_uri"]).get_signing_key_from_jwt(token)
    claims: dict[str, object] = jwt.decode(
        token, key.key, algorithms=["RS256"], audience=OIDC_AUDIENCE, issuer=provider.issuer
    )
    return claims


def test_the_device_flow_waits_for_the_person_then_gets_tokens_for_keeper(
    oidc_provider: OidcProvider, config: OidcConfiguration
) -> None:
    waits: list[float] = []
    with httpx.Client(timeout=10) as http:
        device = request_device_code(http, config)
        assert device.verification_uri.startswith(oidc_provider.issuer)

        def person_approves_while_the_cli_waits(seconds: float) -> None:
            waits.append(seconds)
            if len(waits) == 1:
                oidc_provider.approve_device(device.user_code, "bob")

        tokens = poll_for_tokens(http, config, device, sleep=person_approves_while_the_cli_waits)
    assert waits == [device.interval]  # authorization_pending once, then the tokens
    assert _claims(oidc_provider, tokens.access_token)["sub"] == "bob"
    assert tokens.refresh_token is not None
    assert tokens.expires_at is not None


def test_an_expired_access_token_is_refreshed_before_use_and_saved(
    oidc_provider: OidcProvider, config: OidcConfiguration, tmp_path: Path
) -> None:
    path = tmp_path / "profiles.toml"
    with httpx.Client(timeout=10) as http:
        device = request_device_code(http, config)
        oidc_provider.approve_device(device.user_code, "alice")
        tokens = poll_for_tokens(http, config, device, sleep=lambda _: None)
    save_profile("reviewer", {"url": "http://127.0.0.1:1", **token_members(config, tokens)}, path)
    profile = load_profile("reviewer", path)
    assert profile.member("api_key") == tokens.access_token
    assert fresh_profile(profile, path) is profile  # not expired: nothing to do

    assert tokens.expires_at is not None
    refreshed = fresh_profile(profile, path, now=tokens.expires_at)
    assert refreshed.oidc_access_token != tokens.access_token
    assert _claims(oidc_provider, str(refreshed.oidc_access_token))["sub"] == "alice"
    stored = tomllib.loads(path.read_text())["reviewer"]
    assert stored["oidc_access_token"] == refreshed.oidc_access_token
    assert stored["url"] == "http://127.0.0.1:1"


def test_a_revoked_refresh_token_asks_to_sign_in_again(
    oidc_provider: OidcProvider, config: OidcConfiguration, tmp_path: Path
) -> None:
    path = tmp_path / "profiles.toml"
    with httpx.Client(timeout=10) as http:
        revocation = discover_revocation_endpoint(http, config.issuer)
        assert revocation == oidc_provider.discovery["revocation_endpoint"]
        device = request_device_code(http, config)
        oidc_provider.approve_device(device.user_code, "bob")
        tokens = poll_for_tokens(http, config, device, sleep=lambda _: None)
        assert tokens.refresh_token is not None
        assert revoke_token(http, revocation, config.client_id, tokens.refresh_token)
    save_profile("agent", token_members(config, tokens), path)
    profile = load_profile("agent", path)
    assert tokens.expires_at is not None
    with pytest.raises(ProfileError, match="run `lorebase login --oidc --profile agent` again"):
        fresh_profile(profile, path, now=tokens.expires_at)


def _scripted(*answers: tuple[int, dict[str, object]]) -> httpx.Client:
    """A token endpoint that gives `answers` in turn (issuer errors on demand)."""
    queue = list(answers)

    def answer(request: httpx.Request) -> httpx.Response:
        status, body = queue.pop(0)
        return httpx.Response(status, content=json.dumps(body).encode())

    return httpx.Client(transport=httpx.MockTransport(answer))


DEVICE = DeviceCode(
    device_code="dc",
    user_code="ABCD-EFGH",
    verification_uri="https://idp.test/device",
    verification_uri_complete=None,
    expires_in=600,
    interval=5,
)
SCRIPTED = OidcConfiguration(
    issuer="https://idp.test",
    client_id="lorebase-cli",
    device_authorization_endpoint="https://idp.test/device/auth",
    token_endpoint="https://idp.test/token",
    scopes=("openid",),
)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        pytest.param((400, {"error": "access_denied"}), "was refused", id="access-denied"),
        pytest.param((400, {"error": "expired_token"}), "code expired", id="expired-token"),
        pytest.param((400, {"error": "invalid_grant"}), r"400 \(invalid_grant\)", id="other"),
        pytest.param((200, {"token_type": "Bearer"}), "no access token", id="no-token"),
    ],
)
def test_the_device_flow_ends_with_a_clear_message(
    answer: tuple[int, dict[str, object]], message: str
) -> None:
    http = _scripted((400, {"error": "authorization_pending"}), answer)
    with http, pytest.raises(SignInError, match=message) as raised:
        poll_for_tokens(http, SCRIPTED, DEVICE, sleep=lambda _: None)
    assert "dc" not in str(raised.value).split()


def test_slow_down_adds_five_seconds_to_the_interval() -> None:
    waits: list[float] = []
    with _scripted(
        (400, {"error": "authorization_pending"}),
        (400, {"error": "slow_down"}),
        (400, {"error": "authorization_pending"}),
        (200, {"access_token": "at", "expires_in": 60}),
    ) as http:
        tokens = poll_for_tokens(http, SCRIPTED, DEVICE, sleep=waits.append)
    assert waits == [5, 10, 10]
    assert tokens.access_token == "at"


def test_the_device_flow_gives_up_when_the_code_expires() -> None:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    pending = (400, {"error": "authorization_pending"})
    with _scripted(*[pending] * 200) as http, pytest.raises(SignInError, match="code expired"):
        poll_for_tokens(http, SCRIPTED, DEVICE, sleep=sleep, clock=lambda: now[0])
    assert now[0] <= DEVICE.expires_in


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        pytest.param(
            {"client_id": "lorebase-cli", "issuer": "x"}, "no device flow", id="no-device"
        ),
        pytest.param(
            {"issuer": "x", "device_authorization_endpoint": "a", "token_endpoint": "b"},
            "no OIDC client id",
            id="no-client",
        ),
    ],
)
def test_a_keeper_without_a_device_flow_is_explained(
    answer: dict[str, object], message: str
) -> None:
    with pytest.raises(SignInError, match=message):
        OidcConfiguration.from_answer(answer)


def test_logout_revokes_the_refresh_token_at_the_issuer(
    oidc_provider: OidcProvider, config: OidcConfiguration, tmp_path: Path
) -> None:
    path = tmp_path / "profiles.toml"
    with httpx.Client(timeout=10) as http:
        device = request_device_code(http, config)
        oidc_provider.approve_device(device.user_code, "bob")
        tokens = poll_for_tokens(http, config, device, sleep=lambda _: None)
    revocation = oidc_provider.discovery["revocation_endpoint"]
    members = token_members(replace(config, revocation_endpoint=revocation), tokens)
    save_profile("agent", {"url": "http://127.0.0.1:1", "domain": "supply", **members}, path)
    result = CliRunner().invoke(
        main, ["logout", "--profile", "agent"], env={"LOREBASE_PROFILES": str(path)}
    )
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    assert tomllib.loads(path.read_text())["agent"] == {
        "url": "http://127.0.0.1:1",
        "domain": "supply",
    }
    assert tokens.refresh_token is not None
    with httpx.Client(timeout=10) as http, pytest.raises(SignInError, match="invalid_grant"):
        refresh_tokens(http, config.token_endpoint, config.client_id, tokens.refresh_token)


def test_login_with_oidc_at_a_keeper_without_it_says_so(keeper: LiveKeeper, tmp_path: Path) -> None:
    path = tmp_path / "profiles.toml"
    result = CliRunner().invoke(
        main,
        ["login", "--oidc", "--url", keeper.url],
        env={"LOREBASE_PROFILES": str(path), "LOREBASE_PROFILE": None},
    )
    assert result.exit_code == 1
    assert "offers no OIDC sign-in" in result.stderr
    assert not path.exists()


def test_lorebase_login_oidc_end_to_end(
    oidc_provider: OidcProvider, tmp_path: Path, store: Store
) -> None:
    """`lorebase login --oidc` in its own process against Keeper in auth mode oidc on loopback;
    the person approves the code the CLI prints while it polls; then `whoami` uses the token,
    refreshing it once it has expired."""
    settings = Settings(
        keeper={
            "auth": {
                "mode": "oidc",
                "oidc": {
                    "issuer": oidc_provider.issuer,
                    "client_id": "lorebase-cli",  # the provider's client allowed the device flow
                    "audience": [OIDC_AUDIENCE],
                    "timeout_s": 2,
                },
            }
        }
    )
    path = tmp_path / "profiles.toml"
    environment = {
        **os.environ,
        "LOREBASE_PROFILES": str(path),
        "LOREBASE_PROFILE": "",
        "LOREBASE_API_KEY": "",
    }
    with serve_in_thread(create_app(settings, store=store)) as url:
        login = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lorebase_client.cli",
                "login",
                "--oidc",
                "--url",
                url,
                "--profile",
                "bob",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environment,
            text=True,
        )
        try:
            assert login.stderr is not None
            prompt = login.stderr.readline()
            found = re.search(r"open (\S+) and enter the code (\S+) ", prompt)
            assert found is not None, prompt
            assert found.group(1).startswith(oidc_provider.issuer)
            oidc_provider.approve_device(found.group(2), "bob")
            out, err = login.communicate(timeout=30)
        finally:
            login.kill()
        assert login.returncode == 0, err
        assert f"signed in as bob (oidc) at {url}; profile 'bob'" in out
        stored = load_profile("bob", path)
        assert stored.api_key is None
        assert stored.oidc_access_token is not None
        assert stored.oidc_revocation_endpoint == oidc_provider.discovery["revocation_endpoint"]
        assert stat.S_IMODE(path.stat().st_mode) == 0o600

        save_profile("bob", {"oidc_expires_at": 1}, path)  # long expired
        whoami = CliRunner().invoke(
            main, ["whoami", "--profile", "bob"], env={"LOREBASE_PROFILES": str(path)}
        )
        assert whoami.exit_code == 0, whoami.output
        assert "principal: bob" in whoami.stdout
        assert "authenticated by: oidc" in whoami.stdout
        refreshed = load_profile("bob", path)
        assert refreshed.oidc_access_token != stored.oidc_access_token
        assert (refreshed.oidc_expires_at or 0) > 1
