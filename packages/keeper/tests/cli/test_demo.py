"""`lorebase demo`: three principals whose keys walk the whole loop, set up safely again and again.

The demo's keys then authenticate against a Keeper over the same database: the agent's task
write opens a Proposal, the agent cannot approve it, the reviewer approves and merges it.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from packages.keeper.tests.conftest import ROOT, client_of, wait_until_ready

from lorebase_core.errors import Conflict, DomainNotFound
from lorebase_keeper.app import create_app
from lorebase_keeper.cli.commands import demo
from lorebase_keeper.cli.demo import (
    DEMO_KEY_DESCRIPTION,
    DEMO_PRINCIPALS,
    read_profiles,
    setup_demo,
)
from lorebase_keeper.testing import assert_problem, free_port
from lorebase_platform.settings import Settings
from lorebase_store import Store

URL = "http://127.0.0.1:8080"
EXAMPLE = ROOT / "examples" / "supply"
LOREBASE = [sys.executable, "-m", "lorebase_client.cli"]
SUPPLY = "/api/v1/domains/supply"


def profiles_of(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def active_demo_keys(store: Store, principal: str) -> list[str]:
    return [
        key.id
        for key in store.keys(principal)
        if key.revoked_at is None and key.description == DEMO_KEY_DESCRIPTION
    ]


def grant_rows(store: Store) -> list[tuple[str, str, str, str]]:
    return sorted((g.principal, g.domain, g.role, g.branch) for g in store.grants())


def test_setup_makes_three_principals_with_grants_keys_and_a_private_profiles_file(
    supply: Store, tmp_path: Path
) -> None:
    path = tmp_path / "data" / "profiles.toml"
    made = setup_demo(supply, path, url=URL)
    assert [profile.principal.profile for profile in made] == ["admin", "agent", "reviewer"]
    assert not any(profile.key_reused for profile in made)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    written = profiles_of(path)
    for profile in made:
        entry = written[profile.principal.profile]
        assert entry == {
            "principal": profile.principal.principal,
            "url": URL,
            "domain": "supply",
            "api_key": profile.api_key,
        }
        owner = supply.key_principal(profile.api_key)
        assert owner is not None
        assert owner.id == profile.principal.principal
        assert owner.type == profile.principal.principal_type
    assert grant_rows(supply) == [
        ("svc_agent", "supply", "editor", "agent/*"),
        ("svc_agent", "supply", "editor", "main"),
        ("usr_admin", "supply", "admin", "*"),
        ("usr_reviewer", "supply", "reviewer", "*"),
    ]


def test_setup_again_reuses_principals_grants_and_keys(supply: Store, tmp_path: Path) -> None:
    path = tmp_path / "profiles.toml"
    first = setup_demo(supply, path, url=URL)
    grants, keys = grant_rows(supply), supply.keys()
    again = setup_demo(supply, path, url=URL)
    assert [profile.api_key for profile in again] == [profile.api_key for profile in first]
    assert all(profile.key_reused for profile in again)
    assert grant_rows(supply) == grants
    assert supply.keys() == keys


def test_a_lost_profiles_file_reissues_the_keys_and_revokes_the_old_ones(
    supply: Store, tmp_path: Path
) -> None:
    path = tmp_path / "profiles.toml"
    first = setup_demo(supply, path, url=URL)
    path.unlink()
    again = setup_demo(supply, path, url=URL)
    for old, new in zip(first, again, strict=True):
        assert not new.key_reused
        assert new.api_key != old.api_key
        assert supply.key_principal(old.api_key) is None  # revoked
        assert active_demo_keys(supply, new.principal.principal) == [new.api_key[4:16]]
    assert len(grant_rows(supply)) == 4


def test_a_revoked_key_in_the_file_is_replaced(supply: Store, tmp_path: Path) -> None:
    path = tmp_path / "profiles.toml"
    first = {profile.principal.profile: profile for profile in setup_demo(supply, path, url=URL)}
    supply.revoke_key(first["agent"].api_key[4:16])
    again = {profile.principal.profile: profile for profile in setup_demo(supply, path, url=URL)}
    assert not again["agent"].key_reused
    assert supply.key_principal(again["agent"].api_key) is not None
    assert profiles_of(path)["agent"]["api_key"] == again["agent"].api_key
    assert again["reviewer"].key_reused


def test_a_key_of_another_principal_in_the_file_is_not_reused(
    supply: Store, tmp_path: Path
) -> None:
    path = tmp_path / "profiles.toml"
    setup_demo(supply, path, url=URL)
    profiles = read_profiles(path)
    profiles["agent"]["api_key"] = profiles["admin"]["api_key"]
    path.write_text(
        "\n".join(
            f'[{name}]\napi_key = "{profile["api_key"]}"' for name, profile in profiles.items()
        )
    )
    again = {profile.principal.profile: profile for profile in setup_demo(supply, path, url=URL)}
    assert not again["agent"].key_reused
    owner = supply.key_principal(again["agent"].api_key)
    assert owner is not None
    assert owner.id == "svc_agent"
    assert again["admin"].key_reused


def test_other_profiles_in_the_file_are_kept(supply: Store, tmp_path: Path) -> None:
    path = tmp_path / "profiles.toml"
    path.write_text(
        '[work]\nurl = "https://lorebase.example"\napi_key = "lbk_x"\nverify = true\n'
        '["café 😀"]\nnote = "Zürich \\"quoted\\" 😀"\nport = 8443\n'
    )
    setup_demo(supply, path, url=URL)
    written = profiles_of(path)
    assert written["work"] == {
        "url": "https://lorebase.example",
        "api_key": "lbk_x",
        "verify": True,
    }
    assert written["café 😀"] == {"note": 'Zürich "quoted" 😀', "port": 8443}
    assert set(written) == {"work", "café 😀", "admin", "agent", "reviewer"}


def test_without_the_domain_nothing_is_written(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "profiles.toml"
    with pytest.raises(DomainNotFound, match="lorebase import examples/supply"):
        setup_demo(store, path, url=URL)
    assert not path.exists()
    assert store.grants() == []
    assert store.keys() == []


def test_a_file_that_is_not_a_profiles_file_is_left_alone(supply: Store, tmp_path: Path) -> None:
    path = tmp_path / "profiles.toml"
    path.write_text("not = [toml")
    with pytest.raises(ValueError, match="not a TOML profiles file"):
        setup_demo(supply, path, url=URL)
    path.write_text('name = "a value, not a table"\n')
    with pytest.raises(ValueError, match="'name' is not a profile"):
        setup_demo(supply, path, url=URL)
    assert path.read_text() == 'name = "a value, not a table"\n'


def test_a_demo_principal_of_the_wrong_type_is_refused(supply: Store, tmp_path: Path) -> None:
    supply.ensure_principal("svc_agent", principal_type="user")
    with pytest.raises(Conflict, match="'svc_agent' exists as a user principal"):
        setup_demo(supply, tmp_path / "profiles.toml", url=URL)


@pytest.mark.anyio
async def test_the_demo_keys_walk_the_write_and_review_loop(supply: Store, tmp_path: Path) -> None:
    made = {
        p.principal.profile: p.api_key for p in setup_demo(supply, tmp_path / "p.toml", url=URL)
    }
    app = create_app(Settings(keeper={"auth": {"mode": "api_key"}}), store=supply)

    def as_(profile: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {made[profile]}"}

    async with client_of(app) as http:
        answer = await http.post(
            f"{SUPPLY}/operations/update_supplier/execute",
            json={
                "parameters": {"key": "S-1024", "risk_score": 72},
                "task": "q4-audit",
                "intent": "Two missed delivery dates",
            },
            headers=as_("agent"),
        )
        assert answer.status_code == 202, answer.text
        assert answer.json()["status"] == "proposed"
        proposal = answer.json()["proposal"]["id"]
        reviews = f"{SUPPLY}/proposals/{proposal}/reviews"
        refused = await http.post(reviews, json={"verdict": "approve"}, headers=as_("agent"))
        assert_problem(refused, 403, "forbidden")
        approved = await http.post(reviews, json={"verdict": "approve"}, headers=as_("reviewer"))
        assert approved.status_code == 201, approved.text
        merged = await http.post(
            f"{SUPPLY}/proposals/{proposal}/merge", json={}, headers=as_("reviewer")
        )
        assert merged.status_code == 200, merged.text
        assert merged.json()["status"] == "merged"
        record = await http.get(f"{SUPPLY}/kinds/Supplier/records/S-1024", headers=as_("admin"))
        assert record.json()["values"]["risk_score"] == "72"
        assert record.json()["values"]["vat_number"] != "***"  # the admin reads every value


def test_the_demo_command_sets_up_and_prints_how_to_use_the_profiles(
    supply: Store, database_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "profiles.toml"
    runner = CliRunner(env={"LOREBASE_CONFIG": None})
    arguments = ["--setup-only", "--port", "8181", "--profiles", str(path)]
    result = runner.invoke(demo, [*arguments, "--database", database_url])
    assert result.exit_code == 0, result.output
    written = profiles_of(path)
    for principal in DEMO_PRINCIPALS:
        assert principal.principal in result.stdout
        assert written[principal.profile]["api_key"] in result.stdout
        assert written[principal.profile]["url"] == "http://127.0.0.1:8181"
    assert "--profile agent" in result.stdout
    assert "(new)" in result.stdout
    again = runner.invoke(demo, [*arguments, "--database", database_url])
    assert again.exit_code == 0, again.output
    assert "(new)" not in again.stdout
    assert again.stdout.count("(reused)") == 3


def test_the_demo_command_without_the_import_says_what_to_run(
    store: Store, database_url: str, tmp_path: Path
) -> None:
    runner = CliRunner(env={"LOREBASE_CONFIG": None})
    arguments = ["--setup-only", "--profiles", str(tmp_path / "p.toml")]
    result = runner.invoke(demo, [*arguments, "--database", database_url])
    assert result.exit_code == 1
    assert "import it first (`lorebase import examples/supply`)" in result.stderr


def test_the_demo_serves_with_api_keys_on_loopback(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'db.sqlite'}"
    imported = subprocess.run(
        [*LOREBASE, "import", str(EXAMPLE), "--database", database],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "LOREBASE_CONFIG": ""},
    )
    assert imported.returncode == 0, imported.stderr
    port, profiles = free_port(), tmp_path / "profiles.toml"
    output = tmp_path / "keeper.log"
    with output.open("w") as log:
        process = subprocess.Popen(
            [*LOREBASE, "demo", "--port", str(port), "--database", database],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "LOREBASE_CONFIG": "", "LOREBASE_PROFILES": str(profiles)},
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_ready(url, process, output)
        agent = profiles_of(profiles)["agent"]
        assert agent["url"] == url
        assert agent["api_key"] in output.read_text()
        whoami = f"{url}/api/v1/auth/whoami"
        assert httpx.get(whoami, timeout=10).status_code == 401  # API keys, not auth none
        answer = httpx.get(whoami, headers={"X-API-Key": agent["api_key"]}, timeout=10)
        assert answer.status_code == 200
        assert answer.json()["principal"] == "svc_agent"
    finally:
        process.terminate()
        process.wait(timeout=10)
