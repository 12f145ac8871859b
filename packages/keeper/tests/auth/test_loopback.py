"""Auth mode `none` starts on loopback only: the CLI, the environment and create_app alike."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from lorebase_core.errors import UnsafeSettings
from lorebase_keeper.app import create_app
from lorebase_keeper.auth.loopback import is_loopback
from lorebase_keeper.cli.commands import serve
from lorebase_keeper.server import server_config
from lorebase_platform.settings import Settings

LOREBASE = [sys.executable, "-m", "lorebase_client.cli"]
SETTING = "keeper.auth.allow_none_off_loopback"
RUNNING = re.compile(r"Uvicorn running on (http://\S+)")


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        pytest.param("127.0.0.1", True, id="127.0.0.1"),
        pytest.param("::1", True, id="::1"),
        pytest.param("localhost", True, id="localhost"),
        pytest.param("LOCALHOST", True, id="localhost-upper-case"),
        pytest.param("127.0.0.2", False, id="another-127-address"),
        pytest.param("127.1", False, id="short-form"),
        pytest.param("0.0.0.0", False, id="every-ipv4-address"),
        pytest.param("::", False, id="every-ipv6-address"),
        pytest.param("", False, id="empty"),
        pytest.param("10.1.2.3", False, id="private"),
        pytest.param("::ffff:127.0.0.1", False, id="ipv4-mapped"),
        pytest.param("localhost.example", False, id="name-beginning-with-localhost"),
        pytest.param("example.com", False, id="other-name"),
    ],
)
def test_only_127_0_0_1_and_1_and_localhost_are_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def _settings(tmp_path: Path, host: str, **auth: object) -> Settings:
    return Settings(
        database={"url": f"sqlite:///{tmp_path / 'db.sqlite'}"},
        keeper={"host": host, "auth": {"mode": "none", **auth}},
    )


@pytest.mark.parametrize("host", ["0.0.0.0", "127.0.0.2", "::", "localhost.example"])
def test_create_app_refuses_auth_none_off_loopback(tmp_path: Path, host: str) -> None:
    with pytest.raises(UnsafeSettings) as refused:
        create_app(_settings(tmp_path, host))
    assert SETTING in refused.value.detail
    assert "api_key" in refused.value.detail
    assert not (tmp_path / "db.sqlite").exists()  # refused before the database is opened


def test_create_app_accepts_auth_none_off_loopback_when_the_setting_allows_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(_settings(tmp_path, "0.0.0.0", allow_none_off_loopback=True))
    app.state.store.close()
    assert SETTING in caplog.text


def test_create_app_with_api_keys_listens_anywhere(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "0.0.0.0")
    settings.keeper.auth.mode = "api_key"
    create_app(settings).state.store.close()


def test_the_server_refuses_to_bind_off_loopback_in_auth_mode_none(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "127.0.0.1")
    app = create_app(settings)
    try:
        with pytest.raises(UnsafeSettings):
            server_config(app, settings, host="0.0.0.0")
        assert server_config(app, settings, host="::1").host == "::1"
    finally:
        app.state.store.close()


@pytest.mark.parametrize("host", ["127.0.0.2", "0.0.0.0"])
def test_serve_with_the_auth_flag_refuses_an_address_off_loopback(
    tmp_path: Path, host: str
) -> None:
    runner = CliRunner(env={"LOREBASE_CONFIG": None})
    database = f"sqlite:///{tmp_path / 'db.sqlite'}"
    result = runner.invoke(serve, ["--auth", "none", "--host", host, "--database", database])
    assert result.exit_code == 1, result.output
    assert f"auth mode 'none' on {host!r}" in result.stderr
    assert SETTING in result.stderr


def clean_environment(tmp_path: Path, **settings: str) -> dict[str, str]:
    clean = {name: value for name, value in os.environ.items() if not name.startswith("LOREBASE")}
    variables = {f"LOREBASE__KEEPER__{name.upper()}": value for name, value in settings.items()}
    return {
        **clean,
        **variables,
        "LOREBASE__DATABASE__URL": f"sqlite:///{tmp_path / 'db.sqlite'}",
    }


@pytest.mark.parametrize("host", ["0.0.0.0", "127.0.0.2"])
def test_serve_with_auth_none_from_the_environment_refuses_an_address_off_loopback(
    tmp_path: Path, host: str
) -> None:
    environment = clean_environment(tmp_path, auth__mode="none", host=host)
    result = subprocess.run(
        [*LOREBASE, "serve"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert SETTING in result.stderr
    assert "Uvicorn running" not in result.stderr


@contextmanager
def serve_process(arguments: list[str], environment: dict[str, str], log: Path) -> Iterator[str]:
    """`lorebase serve` in its own process; yields the URL it listens on."""
    with log.open("w") as output:
        process = subprocess.Popen(
            [*LOREBASE, "serve", *arguments],
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while not (found := RUNNING.search(log.read_text())):
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "Keeper did not start within 60 s"
            time.sleep(0.1)
        yield found.group(1)
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_serve_with_auth_none_on_loopback_starts_and_answers(tmp_path: Path) -> None:
    environment = clean_environment(tmp_path)
    with serve_process(
        ["--auth", "none", "--host", "127.0.0.1", "--port", "0"],
        environment,
        tmp_path / "keeper.log",
    ) as url:
        assert httpx.get(f"{url}/healthz", timeout=5).status_code == 200
        whoami = httpx.get(f"{url}/api/v1/auth/whoami", timeout=5).json()
        assert whoami["authenticated_by"] == "none"


def test_serve_off_loopback_starts_when_the_setting_allows_it(tmp_path: Path) -> None:
    environment = clean_environment(
        tmp_path, auth__mode="none", auth__allow_none_off_loopback="true", host="127.0.0.2"
    )
    log = tmp_path / "keeper.log"
    with serve_process(["--port", "0"], environment, log) as url:
        assert url.startswith("http://127.0.0.2:")
        assert httpx.get(f"{url}/healthz", timeout=5).status_code == 200
    assert SETTING in log.read_text()


@pytest.mark.parametrize("mode", ["oidc", "api_key+oidc"])
def test_serve_with_an_oidc_auth_flag_and_no_issuer_says_what_to_set(
    tmp_path: Path, mode: str
) -> None:
    runner = CliRunner(env={"LOREBASE_CONFIG": None})
    database = f"sqlite:///{tmp_path / 'db.sqlite'}"
    result = runner.invoke(serve, ["--auth", mode, "--database", database])
    assert result.exit_code == 1, result.output
    assert "keeper.auth.oidc.issuer" in result.stderr
