"""`--profile` and $LOREBASE_PROFILE: Keeper's URL, a key and a Domain from the profiles file.

Precedence: options on the command line, then the chosen profile, then $LOREBASE_URL,
$LOREBASE_API_KEY and $LOREBASE_DOMAIN. The live Keeper tells the keys apart: the viewer is
narrowed to Supplier, so its schema holds one Kind where the admin's holds six.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner, Result

from lorebase_client.cli import main
from lorebase_client.profiles import Profile, ProfileError, default_profiles_path, load_profile

if TYPE_CHECKING:
    from conftest import LiveKeeper

Env = dict[str, str | None]
UNSET: Env = {
    "LOREBASE_URL": None,
    "LOREBASE_API_KEY": None,
    "LOREBASE_DOMAIN": None,
    "LOREBASE_PROFILE": None,
    "LOREBASE_PROFILES": None,
}


@pytest.fixture
def profiles(keeper: LiveKeeper, tmp_path: Path) -> Path:
    path = tmp_path / "profiles.toml"
    path.write_text(
        f'[viewer]\nurl = "{keeper.url}"\napi_key = "{keeper.viewer_key}"\ndomain = "supply"\n\n'
        f'[admin]\nurl = "{keeper.url}"\napi_key = "{keeper.admin_key}"\ndomain = "supply"\n\n'
        f'[keyless]\nurl = "{keeper.url}"\n'
    )
    return path


def _kinds(result: Result) -> set[str]:
    assert result.exit_code == 0, result.output
    return {kind["name"] for kind in json.loads(result.stdout)["kinds"]}


def _run(args: list[str], env: Env) -> Result:
    return CliRunner().invoke(main, args, env={**UNSET, **env})


def test_a_profile_gives_the_url_the_key_and_the_domain(profiles: Path) -> None:
    chosen = _run(["schema", "--profile", "viewer"], {"LOREBASE_PROFILES": str(profiles)})
    assert _kinds(chosen) == {"Supplier"}
    from_env = _run(["schema"], {"LOREBASE_PROFILES": str(profiles), "LOREBASE_PROFILE": "viewer"})
    assert _kinds(from_env) == {"Supplier"}


def test_the_profile_wins_over_the_environment_and_the_command_line_over_both(
    keeper: LiveKeeper, profiles: Path
) -> None:
    env: Env = {
        "LOREBASE_PROFILES": str(profiles),
        "LOREBASE_URL": "http://127.0.0.1:9",  # nothing listens there
        "LOREBASE_API_KEY": keeper.admin_key,
        "LOREBASE_DOMAIN": "notes",
    }
    assert _kinds(_run(["schema", "--profile", "viewer"], env)) == {"Supplier"}
    given = _run(["schema", "--profile", "viewer", "--api-key", keeper.admin_key], env)
    assert "Supplier" in _kinds(given)
    assert len(_kinds(given)) > 1
    elsewhere = _run(["schema", "--profile", "viewer", "--domain", "notes"], env)
    assert elsewhere.exit_code == 1  # the viewer has no grant on notes
    assert "[domain-not-found]" in elsewhere.stderr
    # --profile on the command line wins over $LOREBASE_PROFILE
    switched = _run(["schema", "--profile", "admin"], {**env, "LOREBASE_PROFILE": "viewer"})
    assert len(_kinds(switched)) > 1


def test_what_a_profile_leaves_out_comes_from_the_environment(
    keeper: LiveKeeper, profiles: Path
) -> None:
    env: Env = {
        "LOREBASE_PROFILES": str(profiles),
        "LOREBASE_API_KEY": keeper.viewer_key,
        "LOREBASE_DOMAIN": "supply",
    }
    assert _kinds(_run(["schema", "--profile", "keyless"], env)) == {"Supplier"}
    no_domain = _run(["schema", "--profile", "keyless"], {**env, "LOREBASE_DOMAIN": None})
    assert no_domain.exit_code == 2
    assert "Missing option '--domain'" in no_domain.stderr


def test_a_profile_works_for_the_write_commands_too(profiles: Path) -> None:
    result = _run(
        ["proposal", "list", "--profile", "viewer", "--status", "merged"],
        {"LOREBASE_PROFILES": str(profiles)},
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["domain"] == "supply"


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        pytest.param(None, "agent", "no profiles file at", id="no-file"),
        pytest.param('[admin]\nurl = "x"\n', "agent", "no profile 'agent' in", id="unknown"),
        pytest.param("[admin\n", "admin", "cannot read the profiles file", id="not-toml"),
        pytest.param("[admin]\napi_key = 7\n", "admin", "api_key must be text", id="not-text"),
    ],
)
def test_a_profile_that_cannot_be_used_is_a_usage_error(
    tmp_path: Path, content: str | None, name: str, message: str
) -> None:
    path = tmp_path / "profiles.toml"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ProfileError, match=message):
        load_profile(name, path)
    result = _run(["schema", "--profile", name], {"LOREBASE_PROFILES": str(path)})
    assert result.exit_code == 2
    assert message in result.stderr
    assert "--profile" in result.stderr


def test_the_error_names_the_profiles_the_file_has(tmp_path: Path) -> None:
    path = tmp_path / "profiles.toml"
    path.write_text('[admin]\nurl = "x"\n[agent]\nurl = "y"\n')
    with pytest.raises(ProfileError, match="it has admin, agent"):
        load_profile("reviewer", path)


def test_the_profiles_file_defaults_to_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LOREBASE_PROFILES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_profiles_path() == tmp_path / "lorebase" / "profiles.toml"
    monkeypatch.setenv("LOREBASE_PROFILES", str(tmp_path / "mine.toml"))
    assert default_profiles_path() == tmp_path / "mine.toml"


def test_members_left_out_or_empty_are_none(tmp_path: Path) -> None:
    path = tmp_path / "profiles.toml"
    path.write_text('[local]\nurl = "http://127.0.0.1:8080"\napi_key = ""\nprincipal = "me"\n')
    assert load_profile("local", path) == Profile(name="local", url="http://127.0.0.1:8080")
