"""`lorebase-guide`: serve starts a Guide that answers, modes clear empties the mode memory."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from click.testing import CliRunner
from packages.guide.tests.conftest import LiveKeeper

from lorebase_guide.cli import main

SCRIPT = Path(sys.executable).parent / "lorebase-guide"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_answers_healthz_and_readyz(keeper: LiveKeeper, tmp_path: Path) -> None:
    config = tmp_path / "lorebase.yaml"
    config.write_text(
        f"guide:\n  keeper: {{base_url: '{keeper.url}'}}\n  data_dir: '{tmp_path}'\n"
        "  http: {allowed_origins: ['http://app.example']}\n"
    )
    port = free_port()
    environment = {
        name: value for name, value in os.environ.items() if not name.startswith("LOREBASE")
    }
    process = subprocess.Popen(
        [str(SCRIPT), "serve", "--config", str(config), "--port", str(port)],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                health = httpx.get(f"{url}/healthz", timeout=1)
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stdout.read() if process.stdout else ""
                assert time.monotonic() < deadline, "lorebase-guide serve did not listen"
                time.sleep(0.1)
        assert health.json() == {"status": "ok"}
        assert httpx.get(f"{url}/readyz").status_code == 200
        refused = httpx.post(f"{url}/explore", json={"domain": "supply", "question": "q"})
        assert refused.status_code == 401
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=30)
    text = output.decode()
    assert "POST /explore 401" in text  # the access log: method, route, status, duration
    assert f"127.0.0.1:{port}" in text


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
