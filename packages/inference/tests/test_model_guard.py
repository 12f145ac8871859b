"""The guard against real models in tests, run on tests of its own in a pytest subprocess."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

from lorebase_inference import model_guard

GUARDED = """
import socket
import threading

import httpx
import pytest

from lorebase_inference import model_guard

from lorebase_inference import model_guard
from lorebase_inference.testing import LocalModelServer, ScriptedModelServer

OUTSIDE = "http://203.0.113.9:9/v1/models"  # TEST-NET-3: routed nowhere


def test_an_outside_address_fails_even_when_the_error_is_caught():
    try:
        httpx.get(OUTSIDE, timeout=0.2)
    except httpx.HTTPError:
        pass  # code under test turning it into an error of its own


def test_an_outside_address_fails_from_async_code_too():
    import asyncio

    async def fetch():
        async with httpx.AsyncClient(timeout=0.2) as client:
            await client.get(OUTSIDE)

    asyncio.run(fetch())


def test_loopback_servers_are_fine():
    with ScriptedModelServer() as server:
        assert httpx.get(server.base_url + "/models").status_code == 200
        host_named = server.base_url.replace("127.0.0.1", "localhost")
        assert httpx.get(host_named + "/models").status_code == 200


@pytest.mark.model
def test_a_model_test_may_go_out():
    with socket.socket() as probe:
        probe.settimeout(0.05)
        probe.connect_ex(("203.0.113.9", 9))


def test_a_gguf_model_is_not_started(tmp_path):
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + bytes(60))
    LocalModelServer(gguf).start()


def test_a_missing_model_file_fails_as_usual(tmp_path):
    with pytest.raises(FileNotFoundError):
        LocalModelServer(tmp_path / "absent.gguf").start()


def test_the_port_of_a_running_local_model_is_refused():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        model_guard.local_model_ports.add(port)
        try:
            with socket.socket() as client:
                client.connect(("127.0.0.1", port))
        finally:
            model_guard.local_model_ports.discard(port)
"""


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """(outcome, output) of each test of GUARDED, run under the guard in a subprocess."""
    folder = tmp_path_factory.mktemp("guarded")
    (folder / "test_guarded.py").write_text(textwrap.dedent(GUARDED))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "lorebase_inference.model_guard",
            "-p",
            "no:cacheprovider",
            "-rA",
            "--strict-markers",
            "test_guarded.py",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    found: dict[str, tuple[str, str]] = {}
    for outcome, name, rest in re.findall(
        r"^(PASSED|FAILED|ERROR) test_guarded\.py::(\w+)(.*)$", run.stdout, re.MULTILINE
    ):
        found[name] = (outcome, rest)
    found["_output"] = ("", run.stdout)
    return found


@pytest.mark.parametrize(
    ("test", "outcome"),
    [
        pytest.param("test_an_outside_address_fails_even_when_the_error_is_caught", "FAILED"),
        pytest.param("test_an_outside_address_fails_from_async_code_too", "FAILED"),
        pytest.param("test_loopback_servers_are_fine", "PASSED"),
        pytest.param("test_a_model_test_may_go_out", "PASSED"),
        pytest.param("test_a_gguf_model_is_not_started", "FAILED"),
        pytest.param("test_a_missing_model_file_fails_as_usual", "PASSED"),
        pytest.param("test_the_port_of_a_running_local_model_is_refused", "FAILED"),
    ],
)
def test_the_guard(outcomes: dict[str, tuple[str, str]], test: str, outcome: str) -> None:
    assert outcomes.get(test, ("missing", ""))[0] == outcome, outcomes["_output"][1]


def test_the_guard_says_why(outcomes: dict[str, tuple[str, str]]) -> None:
    output = outcomes["_output"][1]
    assert "connection to 203.0.113.9:9, which is not a loopback address" in output
    assert "LocalModelServer started on the model 'tiny.gguf'" in output
    assert "connection to the real model server (LocalModelServer) on port" in output
    assert "must not reach a real model" in output


def test_the_root_conftest_loads_the_guard(pytestconfig: pytest.Config) -> None:
    """Loaded by the root conftest.py's `pytest_plugins`, in every process of the run (each
    pytest-xdist worker loads it too)."""
    assert pytestconfig.pluginmanager.has_plugin("lorebase_inference.model_guard")


@pytest.mark.parametrize(
    ("address", "scope", "local"),
    [
        pytest.param("127.0.0.1", 0, True, id="ipv4-loopback"),
        pytest.param("127.0.0.2", 0, True, id="ipv4-loopback-net"),
        pytest.param("::1", 0, True, id="ipv6-loopback"),
        pytest.param("::ffff:127.0.0.1", 0, True, id="ipv4-mapped-loopback"),
        pytest.param("0.0.0.0", 0, True, id="unspecified"),
        pytest.param("fe80::1%1", 0, True, id="link-local-on-lo-by-index"),
        pytest.param("fe80::1", "lo", True, id="link-local-on-lo-by-name"),
        pytest.param("fe80::1", 0, False, id="link-local-unscoped"),
        pytest.param("10.0.0.5", 0, False, id="private"),
        pytest.param("::ffff:203.0.113.9", 0, False, id="ipv4-mapped-outside"),
        pytest.param("2001:db8::1", 0, False, id="ipv6-outside"),
        pytest.param("not-an-address", 0, False, id="not-an-address"),
    ],
)
def test_what_counts_as_local(address: str, scope: object, local: bool) -> None:
    assert model_guard._local(address, scope) is local
