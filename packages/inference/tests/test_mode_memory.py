"""The mode memory file: a refused mode stays refused across ChatModels and processes, expires,
survives a broken file, and is written without losing another writer's entry."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lorebase_inference import (
    ChatEndpoint,
    ChatModel,
    ModeMemory,
    clear_modes,
    mode_memory_for,
)
from lorebase_inference.chat import mode_key
from lorebase_inference.testing import ScriptedModelServer
from lorebase_platform.settings import Settings

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
ASK = [{"role": "user", "content": "How many?"}]
KEY_A, KEY_B = "a" * 64, "b" * 64


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def _formats(server: ScriptedModelServer) -> list[str | None]:
    """The response_format type of each chat request the server got (None: no format)."""
    return [
        (request.body.get("response_format") or {}).get("type")
        for request in server.requests
        if request.path == "/v1/chat/completions"
    ]


async def _ask(endpoint: ChatEndpoint, memory: ModeMemory) -> str:
    async with ChatModel(endpoint, memory=memory) as model:
        answer = await model.structured(ASK, SCHEMA, name="count")
    return answer.mode


@pytest.mark.anyio
async def test_a_refused_mode_is_remembered_across_chat_models(tmp_path: Path) -> None:
    path = tmp_path / "state" / "modes.json"
    with ScriptedModelServer([{"n": 1}, {"n": 2}], refuse_json_schema=True) as server:
        endpoint = ChatEndpoint(base_url=server.base_url, model="scripted")
        assert await _ask(endpoint, ModeMemory(path, ttl_s=3600)) == "prompt"
        # A second memory on the same file, as after a restart: straight to prompt mode.
        assert await _ask(endpoint, ModeMemory(path, ttl_s=3600)) == "prompt"
    assert _formats(server) == ["json_schema", "json_object", "json_object"]
    document = json.loads(path.read_text())
    assert document["version"] == 1
    assert list(document["modes"]) == [mode_key(endpoint)]
    assert document["modes"][mode_key(endpoint)]["mode"] == "json_object"
    # Only digests: neither the address nor the model name is in the file.
    assert server.base_url.split("//")[1] not in path.read_text()
    assert "scripted" not in path.read_text()
    assert (tmp_path / "state" / "modes.json.lock").exists()


@pytest.mark.anyio
async def test_an_expired_mode_is_tried_again(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "modes.json"
    with ScriptedModelServer([{"n": 1}, {"n": 2}, {"n": 3}], refuse_json_schema=True) as server:
        endpoint = ChatEndpoint(base_url=server.base_url, model="scripted")
        await _ask(endpoint, ModeMemory(path, ttl_s=100, clock=clock))
        clock.now += 99
        await _ask(endpoint, ModeMemory(path, ttl_s=100, clock=clock))
        clock.now += 1  # 100 s after it was written: expired, json_schema is tried again
        memory = ModeMemory(path, ttl_s=100, clock=clock)
        await _ask(endpoint, memory)
    before, after = ["json_schema", "json_object", "json_object"], ["json_schema", "json_object"]
    assert _formats(server) == [*before, *after]
    stored = json.loads(path.read_text())["modes"][mode_key(endpoint)]
    assert stored == {"mode": "json_object", "at": clock.now}


def test_an_unchanged_mode_keeps_its_age_and_expired_entries_are_pruned(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "modes.json"
    memory = ModeMemory(path, ttl_s=100, clock=clock)
    memory.put(KEY_A, "json_object")
    written = path.stat().st_mtime_ns
    clock.now += 50
    memory.put(KEY_A, "json_object")
    assert path.stat().st_mtime_ns == written
    assert json.loads(path.read_text())["modes"][KEY_A]["at"] == clock.now - 50
    clock.now += 60
    memory.put(KEY_B, "plain")  # KEY_A is 110 s old: dropped from the file
    assert list(json.loads(path.read_text())["modes"]) == [KEY_B]
    assert memory.get(KEY_A) is None
    assert memory.get(KEY_B) == "plain"


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("{not json", id="not-json"),
        pytest.param('["a list"]', id="not-an-object"),
        pytest.param('{"version": 9, "modes": {}}', id="another-version"),
    ],
)
def test_a_corrupt_file_is_left_alone_and_memory_lives_in_the_process(
    tmp_path: Path, content: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "modes.json"
    path.write_text(content)
    memory = ModeMemory(path, ttl_s=3600)
    with caplog.at_level(logging.WARNING, logger="lorebase_inference.mode_memory"):
        assert memory.get(KEY_A) is None
        memory.put(KEY_A, "plain")
        memory.put(KEY_B, "json_object")
        assert memory.get(KEY_A) == "plain"
    assert not memory.persistent
    assert path.read_text() == content
    (warning,) = caplog.records
    assert "cannot be read" in warning.getMessage()
    assert "for the life of this process only" in warning.getMessage()


def test_stray_entries_are_dropped_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "modes.json"
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "modes": {
                    KEY_A: {"mode": "plain", "at": 1_800_000_000.0},
                    "http://model.test/v1": {"mode": "plain", "at": 1_800_000_000.0},
                    KEY_B: {"mode": "telepathy", "at": 1_800_000_000.0},
                },
            }
        )
    )
    memory = ModeMemory(path, ttl_s=3600, clock=Clock())
    assert (memory.get(KEY_A), memory.get(KEY_B)) == ("plain", None)
    assert memory.persistent


def test_a_folder_that_cannot_be_made_warns_once_and_still_works(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    memory = ModeMemory(blocker / "guide" / "modes.json", ttl_s=3600)
    with caplog.at_level(logging.WARNING, logger="lorebase_inference.mode_memory"):
        memory.put(KEY_A, "json_object")
        memory.put(KEY_B, "plain")
        assert (memory.get(KEY_A), memory.get(KEY_B)) == ("json_object", "plain")
    assert not memory.persistent
    (warning,) = caplog.records
    assert "cannot be written (Not a directory)" in warning.getMessage()


def test_a_file_that_is_a_folder_warns_once_and_still_works(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "modes.json").mkdir()
    memory = ModeMemory(tmp_path / "modes.json", ttl_s=3600)
    with caplog.at_level(logging.WARNING, logger="lorebase_inference.mode_memory"):
        assert memory.get(KEY_A) is None
        memory.put(KEY_A, "json_object")
        assert memory.get(KEY_A) == "json_object"
    (warning,) = caplog.records
    assert "cannot be read (Is a directory)" in warning.getMessage()


def test_threads_writing_at_once_lose_no_entry(tmp_path: Path) -> None:
    path = tmp_path / "modes.json"
    keys = [f"{index:064x}" for index in range(40)]
    start = threading.Barrier(8)

    def writer(offset: int) -> None:
        memory = ModeMemory(path, ttl_s=3600)  # one memory each, as separate processes have
        start.wait()
        for key in keys[offset::8]:
            memory.put(key, "plain")

    threads = [threading.Thread(target=writer, args=(offset,)) for offset in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(json.loads(path.read_text())["modes"]) == keys
    assert [entry.name for entry in tmp_path.iterdir() if entry.name.startswith(".")] == []


WRITER = """
import sys
from lorebase_inference import ModeMemory
memory = ModeMemory(sys.argv[1], ttl_s=3600)
for index in range(int(sys.argv[2]), int(sys.argv[2]) + 30):
    memory.put(f"{index:064x}", "json_object")
"""


def test_processes_writing_at_once_lose_no_entry(tmp_path: Path) -> None:
    path = tmp_path / "modes.json"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(first)])
        for first in (0, 100)
    ]
    assert [writer.wait(timeout=60) for writer in writers] == [0, 0]
    stored = json.loads(path.read_text())["modes"]
    assert sorted(stored) == sorted(f"{index:064x}" for index in [*range(30), *range(100, 130)])


def test_clear_removes_every_entry(tmp_path: Path) -> None:
    path = tmp_path / "modes.json"
    memory = ModeMemory(path, ttl_s=3600)
    memory.put(KEY_A, "plain")
    memory.put(KEY_B, "json_object")
    assert clear_modes(path) == 2
    assert json.loads(path.read_text()) == {"version": 1, "modes": {}}
    assert clear_modes(path) == 0
    assert clear_modes(tmp_path / "never-written.json") == 0
    # This memory still holds both in the process (a running Guide keeps them until restarted).
    assert memory.get(KEY_A) == "plain"
    memory = ModeMemory(path, ttl_s=3600)
    memory.put(KEY_A, "plain")
    assert memory.clear() == 1
    assert memory.get(KEY_A) is None


def test_clear_refuses_a_file_that_is_not_a_mode_memory(tmp_path: Path) -> None:
    path = tmp_path / "modes.json"
    path.write_text("precious notes")
    with pytest.raises(ValueError, match=r"not a mode memory file|Expecting value"):
        clear_modes(path)
    assert path.read_text() == "precious notes"


def test_a_memory_without_a_file_lives_in_the_process() -> None:
    memory = ModeMemory(None, ttl_s=3600)
    memory.put(KEY_A, "json_object")
    assert (memory.get(KEY_A), memory.persistent, memory.clear()) == ("json_object", False, 1)


def test_mode_memory_for_resolves_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    memory = mode_memory_for(Settings())
    assert memory.path == tmp_path / ".local/state/lorebase/guide/structured_output_modes.json"
    assert memory.ttl_s == 7 * 86400
    settings = Settings.model_validate(
        {
            "guide": {"data_dir": "/var/lib/lorebase/guide", "mode_memory_file": "m.json"},
            "inference": {"mode_memory_ttl_s": 60},
        }
    )
    assert (mode_memory_for(settings).path, mode_memory_for(settings).ttl_s) == (
        Path("/var/lib/lorebase/guide/m.json"),
        60,
    )
