"""The local model server, and `ChatModel.structured` against a real model (marked `model`).

The `model` test runs on the GGUF `scripts/fetch-model.sh` fetches (Qwen2.5-Coder-1.5B-Instruct,
Q4_K_M) served by llama.cpp on one thread; it takes about 20 s there. The others need no model.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lorebase_inference import ChatEndpoint, ChatModel
from lorebase_inference.testing import LOCAL_MODEL_FILE, LocalModelServer, local_model_path

SUPPLIES = """\
| part        | supplier     |
|-------------|--------------|
| P-1 bearing | S-1 Acme     |
| P-1 bearing | S-2 Borealis |
| P-2 gasket  | S-2 Borealis |
| P-3 shaft   | S-3 Corvid   |
| P-4 valve   | S-1 Acme     |
| P-4 valve   | S-3 Corvid   |
"""
SUPPLIER_COUNTS = {"P-1 bearing": 2, "P-2 gasket": 1, "P-3 shaft": 1, "P-4 valve": 2}

# Small models reason better when the schema makes them state each step: the suppliers of each
# part, then their count, then the verdict. Asked for the list of single-supplier parts at the
# end, the 1.5B model names the wrong ones; per part it is right.
PART_SUPPLIERS = {
    "type": "object",
    "additionalProperties": False,
    "required": ["parts"],
    "properties": {
        "parts": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["part", "suppliers", "supplier_count", "single_supplier"],
                "properties": {
                    "part": {"type": "string"},
                    "suppliers": {"type": "array", "items": {"type": "string"}},
                    "supplier_count": {"type": "integer"},
                    "single_supplier": {"type": "boolean"},
                },
            },
        }
    },
}


@pytest.mark.model
@pytest.mark.anyio
async def test_structured_answer_from_a_real_model(local_model: LocalModelServer) -> None:
    endpoint = ChatEndpoint(base_url=local_model.base_url, model=local_model.model, max_tokens=400)
    messages = [
        {"role": "system", "content": "You read tables exactly and answer in JSON."},
        {
            "role": "user",
            "content": "For each part in this table, list its suppliers, count them, and say "
            f"whether the part has a single supplier.\n\n{SUPPLIES}",
        },
    ]
    started = time.monotonic()
    async with ChatModel(endpoint) as model:
        answer = await model.structured(messages, PART_SUPPLIERS, name="part_suppliers")
    elapsed = time.monotonic() - started

    # llama.cpp honours the json_schema response format: no step-down, no repair.
    assert answer.mode == "json_schema"
    assert not answer.repaired
    counts = {row["part"]: row["supplier_count"] for row in answer.value["parts"]}
    assert counts == SUPPLIER_COUNTS
    assert [row["part"] for row in answer.value["parts"] if row["single_supplier"]] == [
        "P-2 gasket",
        "P-3 shaft",
    ]
    assert answer.usage.prompt_tokens > 0
    assert answer.usage.completion_tokens > 0
    print(  # shown with -s: the figures of the slow test
        f"structured answer in {elapsed:.1f} s ({answer.usage.completion_tokens} tokens), "
        f"server started in {local_model.started_in_s:.1f} s, "
        f"RSS {(local_model.rss_bytes() or 0) / 2**30:.2f} GiB"
    )


def test_the_model_path_is_the_fetch_scripts_cache_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LOREBASE_TEST_MODEL_GGUF", raising=False)
    expected = Path.home() / ".cache" / "lorebase" / "models" / LOCAL_MODEL_FILE
    assert local_model_path() == expected


def test_the_model_path_can_be_given(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LOREBASE_TEST_MODEL_GGUF", str(tmp_path / "m.gguf"))
    assert local_model_path() == tmp_path / "m.gguf"


def test_a_missing_model_says_how_to_fetch_it(tmp_path: Path) -> None:
    server = LocalModelServer(tmp_path / "absent.gguf")
    with pytest.raises(FileNotFoundError, match=r"scripts/fetch-model\.sh"):
        server.start()
    assert server.pid is None
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.base_url


def test_a_file_that_is_no_model_fails_with_the_servers_log(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"not a gguf file\n" * 64)
    server = LocalModelServer(bogus, start_timeout_s=60)
    with pytest.raises(RuntimeError, match=r"exited \(\S+\) before serving 'bogus\.gguf'"):
        server.start()
    assert server.pid is None
    assert server.rss_bytes() is None


def test_serving_a_missing_model_says_how_to_fetch_it(tmp_path: Path) -> None:
    from lorebase_inference.local_model import main

    with pytest.raises(SystemExit, match=r"fetch it with `bash scripts/fetch-model\.sh`"):
        main(["--gguf", str(tmp_path / "absent.gguf")])
