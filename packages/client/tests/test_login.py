"""`lorebase login`, `logout` and `whoami` against the session's Keeper on loopback (cli_login.py).

A reviewer and an agent keep their profiles side by side in one file; a key Keeper refuses is
stored nowhere; the file is 0600 in a 0700 directory and keeps what it held.
"""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner, Result

from lorebase_client.cli import main
from lorebase_client.profiles import load_profile

if TYPE_CHECKING:
    from conftest import LiveKeeper

Env = dict[str, str | None]


@pytest.fixture
def profiles(tmp_path: Path) -> Path:
    return tmp_path / "config" / "lorebase" / "profiles.toml"


def _run(args: list[str], profiles: Path, input: str | None = None, **env: str | None) -> Result:
    environment: Env = {
        "LOREBASE_URL": None,
        "LOREBASE_API_KEY": None,
        "LOREBASE_DOMAIN": None,
        "LOREBASE_PROFILE": None,
        "LOREBASE_PROFILES": str(profiles),
        **env,
    }
    return CliRunner().invoke(main, args, env=environment, input=input)


def _login(keeper: LiveKeeper, profiles: Path, profile: str, key: str) -> Result:
    return _run(
        [
            "login",
            "--profile",
            profile,
            "--url",
            keeper.url,
            "--api-key",
            "-",
            "--domain",
            "supply",
        ],
        profiles,
        input=key + "\n",
    )


def test_login_checks_the_key_and_stores_it_readable_by_the_user_only(
    keeper: LiveKeeper, profiles: Path
) -> None:
    result = _login(keeper, profiles, "reviewer", keeper.admin_key)
    assert result.exit_code == 0, result.output
    assert "signed in as usr_admin (api_key)" in result.stdout
    assert stat.S_IMODE(profiles.stat().st_mode) == 0o600
    assert stat.S_IMODE(profiles.parent.stat().st_mode) == 0o700
    stored = load_profile("reviewer", profiles)
    assert (stored.url, stored.api_key, stored.domain) == (keeper.url, keeper.admin_key, "supply")
    assert keeper.admin_key not in result.output


def test_a_reviewer_and_an_agent_side_by_side(keeper: LiveKeeper, profiles: Path) -> None:
    assert _login(keeper, profiles, "reviewer", keeper.admin_key).exit_code == 0
    assert _login(keeper, profiles, "agent", keeper.viewer_key).exit_code == 0
    reviewer = _run(["whoami", "--profile", "reviewer"], profiles)
    assert reviewer.exit_code == 0, reviewer.output
    assert "principal: usr_admin (user)" in reviewer.stdout
    assert "admin on supply/*" in reviewer.stdout
    agent = _run(["whoami"], profiles, LOREBASE_PROFILE="agent")
    assert agent.exit_code == 0, agent.output
    assert "principal: usr_viewer" in agent.stdout
    assert "(kinds Supplier)" in agent.stdout
    # the commands use the profile they are given
    schema = _run(["schema", "--profile", "agent"], profiles)
    assert schema.exit_code == 0, schema.output
    assert '"Supplier"' in schema.stdout


def test_login_to_the_active_profile_by_default(keeper: LiveKeeper, profiles: Path) -> None:
    active = _run(
        ["login", "--url", keeper.url, "--api-key", keeper.viewer_key],
        profiles,
        LOREBASE_PROFILE="agent",
    )
    assert active.exit_code == 0, active.output
    fallback = _run(["login", "--url", keeper.url, "--api-key", keeper.admin_key], profiles)
    assert fallback.exit_code == 0, fallback.output
    document = tomllib.loads(profiles.read_text())
    assert document["agent"]["api_key"] == keeper.viewer_key
    assert document["default"]["api_key"] == keeper.admin_key


def test_a_wrong_key_is_stored_nowhere(keeper: LiveKeeper, profiles: Path) -> None:
    assert _login(keeper, profiles, "reviewer", keeper.admin_key).exit_code == 0
    before = profiles.read_bytes()
    wrong = "lbk_000000000000_" + "x" * 32
    result = _login(keeper, profiles, "reviewer", wrong)
    assert result.exit_code == 1
    assert "[unauthorized]" in result.stderr
    assert wrong not in result.output
    assert profiles.read_bytes() == before
    fresh = _login(keeper, profiles.with_name("other.toml"), "reviewer", wrong)
    assert fresh.exit_code == 1
    assert not profiles.with_name("other.toml").exists()


def test_login_without_a_key_off_a_terminal_is_a_usage_error(
    keeper: LiveKeeper, profiles: Path
) -> None:
    result = _run(["login", "--url", keeper.url], profiles)
    assert result.exit_code == 2
    assert "--api-key -" in result.stderr
    empty = _run(["login", "--url", keeper.url, "--api-key", "-"], profiles, input="\n")
    assert empty.exit_code == 2
    assert "the API key is empty" in empty.stderr
    both = _run(["login", "--oidc", "--api-key", "lbk_x"], profiles)
    assert both.exit_code == 2
    assert not profiles.exists()


def test_login_keeps_the_other_profiles_and_members(keeper: LiveKeeper, profiles: Path) -> None:
    profiles.parent.mkdir(parents=True)
    profiles.write_text(
        '[agent]\nurl = "http://elsewhere:1"\nprincipal = "svc_x"\n\n'
        f'[reviewer]\nurl = "{keeper.url}"\nprincipal = "usr_admin"\ncolour = "blue"\n'
    )
    profiles.chmod(0o644)
    result = _run(["login", "--profile", "reviewer", "--api-key", keeper.admin_key], profiles)
    assert result.exit_code == 0, result.output
    document = tomllib.loads(profiles.read_text())
    assert document["agent"] == {"url": "http://elsewhere:1", "principal": "svc_x"}
    assert document["reviewer"] == {
        "url": keeper.url,  # the profile's own URL, as no --url was given
        "principal": "usr_admin",
        "colour": "blue",
        "api_key": keeper.admin_key,
    }
    assert stat.S_IMODE(profiles.stat().st_mode) == 0o600


def test_a_profiles_file_others_can_read_is_warned_about(
    keeper: LiveKeeper, profiles: Path
) -> None:
    assert _login(keeper, profiles, "reviewer", keeper.admin_key).exit_code == 0
    profiles.chmod(0o644)
    result = _run(["whoami", "--profile", "reviewer"], profiles)
    assert result.exit_code == 0
    assert "others may read it: chmod 600" in result.stderr


def test_logout_forgets_the_credential_and_keeps_the_rest(
    keeper: LiveKeeper, profiles: Path
) -> None:
    assert _login(keeper, profiles, "reviewer", keeper.admin_key).exit_code == 0
    assert _login(keeper, profiles, "agent", keeper.viewer_key).exit_code == 0
    result = _run(["logout", "--profile", "reviewer"], profiles)
    assert result.exit_code == 0, result.output
    document = tomllib.loads(profiles.read_text())
    assert document["reviewer"] == {"url": keeper.url, "domain": "supply"}
    assert document["agent"]["api_key"] == keeper.viewer_key
    assert stat.S_IMODE(profiles.stat().st_mode) == 0o600
    again = _run(["logout", "--profile", "reviewer"], profiles)
    assert (again.exit_code, "holds no credential" in again.stdout) == (0, True)
    # the key itself still works: logout revokes nothing at Keeper
    still = _run(["whoami", "--url", keeper.url, "--api-key", keeper.admin_key], profiles)
    assert "principal: usr_admin" in still.stdout


def test_whoami_when_not_signed_in_exits_1_with_the_401(keeper: LiveKeeper, profiles: Path) -> None:
    assert _login(keeper, profiles, "reviewer", keeper.admin_key).exit_code == 0
    assert _run(["logout", "--profile", "reviewer"], profiles).exit_code == 0
    result = _run(["whoami", "--profile", "reviewer"], profiles)
    assert result.exit_code == 1
    assert "error: Unauthorized" in result.stderr
    assert "[unauthorized]" in result.stderr


def test_whoami_json(keeper: LiveKeeper, profiles: Path) -> None:
    result = _run(
        ["whoami", "--json", "--url", keeper.url, "--api-key", keeper.viewer_key], profiles
    )
    assert result.exit_code == 0, result.output
    assert '"principal": "usr_viewer"' in result.stdout
