"""`lorebase-guide`: serve starts a Guide that answers, modes clear empties the mode memory."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from packages.guide.tests.conftest import LiveKeeper

from lorebase_guide.cli import main
from lorebase_inference import mode_memory_for
from lorebase_inference.testing import ScriptedModelServer
from lorebase_platform.settings import load_settings

SCRIPT = Path(sys.executable).parent / "lorebase-guide"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def clean_environment() -> dict[str, str]:
    """The environment without LOREBASE settings (the config file is the only source)."""
    return {name: value for name, value in os.environ.items() if not name.startswith("LOREBASE")}


class Served:
    """`lorebase-guide serve` running on its port; `output` holds what it printed once stopped."""

    def __init__(self, config: Path, *options: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [str(SCRIPT), "serve", *options, "--config", str(config), "--port", str(self.port)],
            env=clean_environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        self.output = ""

    def __enter__(self) -> Served:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{self.url}/healthz", timeout=1)
                return self
            except httpx.TransportError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.__exit__()
                    raise AssertionError(
                        f"lorebase-guide serve did not listen:\n{self.output}"
                    ) from None
                time.sleep(0.1)

    def __exit__(self, *_: object) -> None:
        self.process.terminate()
        output, _ = self.process.communicate(timeout=30)
        self.output = output.decode()


def test_serve_answers_healthz_and_readyz(keeper: LiveKeeper, tmp_path: Path) -> None:
    config = tmp_path / "lorebase.yaml"
    config.write_text(
        f"guide:\n  keeper: {{base_url: '{keeper.url}'}}\n  data_dir: '{tmp_path}'\n"
        "  http: {allowed_origins: ['http://app.example']}\n"
    )
    with Served(config) as guide:
        assert httpx.get(f"{guide.url}/healthz").json() == {"status": "ok"}
        assert httpx.get(f"{guide.url}/readyz").status_code == 200
        refused = httpx.post(f"{guide.url}/explore", json={"domain": "supply", "question": "q"})
        assert refused.status_code == 401
    assert "POST /explore 401" in guide.output  # the access log: method, route, status, duration
    assert f"127.0.0.1:{guide.port}" in guide.output


def test_serve_when_model_starts_nothing_without_a_model_and_says_why(tmp_path: Path) -> None:
    config = tmp_path / "lorebase.yaml"
    down = f"http://127.0.0.1:{free_port()}/v1"
    config.write_text(
        f"inference:\n  llm: {{base_url: '{down}', model: m, api_key: 'secret://env/GUIDE_KEY'}}\n"
    )
    port = free_port()
    done = subprocess.run(
        [str(SCRIPT), "serve", "--when-model", "--config", str(config), "--port", str(port)],
        env={**clean_environment(), "GUIDE_KEY": "sk-never-shown"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Guide not started: model 'm' at 127.0.0.1:" in done.stderr
    assert "cannot be reached" in done.stderr
    assert "sk-never-shown" not in done.stderr + done.stdout
    with pytest.raises(httpx.TransportError):
        httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)


def test_serve_when_model_serves_once_the_model_answers(keeper: LiveKeeper, tmp_path: Path) -> None:
    with ScriptedModelServer([]) as model:
        config = tmp_path / "lorebase.yaml"
        config.write_text(
            f"guide:\n  keeper: {{base_url: '{keeper.url}'}}\n  data_dir: '{tmp_path}'\n"
            f"inference:\n  llm: {{base_url: '{model.base_url}', model: scripted}}\n"
        )
        with Served(config, "--when-model") as guide:
            assert httpx.get(f"{guide.url}/healthz").json() == {"status": "ok"}
        assert [r.path for r in model.requests] == ["/v1/models"]


def test_serve_refuses_a_bad_config(tmp_path: Path) -> None:
    config = tmp_path / "lorebase.yaml"
    config.write_text("guide:\n  http: {port: 99999}\n")
    result = CliRunner().invoke(main, ["serve", "--config", str(config)])
    assert result.exit_code == 1
    assert "port" in result.output


def test_help_names_the_commands() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    assert "serve" in result.output
    assert "modes" in result.output


def test_modes_clear_empties_the_mode_memory(tmp_path: Path) -> None:
    config = tmp_path / "lorebase.yaml"
    config.write_text(f"guide:\n  data_dir: '{tmp_path / 'guide'}'\n")
    settings = load_settings(config)
    memory = mode_memory_for(settings)
    memory.put("a" * 64, "json_object")
    memory.put("b" * 64, "plain")
    result = CliRunner().invoke(main, ["modes", "clear", "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert "cleared 2 remembered mode(s)" in result.output
    assert mode_memory_for(settings).get("a" * 64) is None
    again = CliRunner().invoke(main, ["modes", "clear", "--config", str(config)])
    assert "cleared 0 remembered mode(s)" in again.output


def test_modes_clear_refuses_a_file_that_is_not_a_mode_memory(tmp_path: Path) -> None:
    config = tmp_path / "lorebase.yaml"
    config.write_text(f"guide:\n  data_dir: '{tmp_path}'\n  mode_memory_file: other.json\n")
    (tmp_path / "other.json").write_text("[1, 2]")
    result = CliRunner().invoke(main, ["modes", "clear", "--config", str(config)])
    assert result.exit_code == 1
    assert "cannot clear" in result.output
    assert (tmp_path / "other.json").read_text() == "[1, 2]"
