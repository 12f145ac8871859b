"""Embeddings: the bundled model run offline by fastembed, and an OpenAI-compatible endpoint."""

from __future__ import annotations

import asyncio
import logging
import math
import shutil
import socket
from pathlib import Path

import pytest

from lorebase_core.errors import EmbeddingUnavailable
from lorebase_inference import (
    EndpointEmbedder,
    LocalEmbedder,
    bundled_model_dir,
    embedder_for,
)
from lorebase_inference.testing import ScriptedModelServer
from lorebase_platform.settings import EmbeddingSettings


def _cosine(first: list[float], second: list[float]) -> float:
    return sum(a * b for a, b in zip(first, second, strict=True))


def _local(**members: object) -> LocalEmbedder:
    embedder = embedder_for(EmbeddingSettings.model_validate(members))
    assert isinstance(embedder, LocalEmbedder)
    return embedder


# -- the bundled model, offline --------------------------------------------------------------


def test_similar_texts_are_closer_than_unrelated_ones() -> None:
    embedder = _local()
    late, delayed, recipe = embedder.embed_sync(
        [
            "late deliveries from Italian suppliers",
            "suppliers in Italy that deliver behind schedule",
            "a recipe for banana bread with walnuts",
        ],
        "query",
    )
    assert (embedder.model, embedder.dimensions) == ("all-MiniLM-L6-v2", 384)
    assert len(late) == 384
    assert math.isclose(math.sqrt(sum(value * value for value in late)), 1.0, rel_tol=1e-6)
    assert _cosine(late, delayed) > 0.5
    assert _cosine(late, delayed) > _cosine(late, recipe) + 0.3


def test_the_same_text_gives_the_same_vector_every_run() -> None:
    text = ["Contract C-3013 covers bearings from supplier S-1007"]
    first = _local().embed_sync(text, "document")[0]
    second = _local().embed_sync(text * 3, "document")
    assert all(_cosine(first, vector) == pytest.approx(1.0, abs=1e-6) for vector in second)


def test_query_and_document_prefixes_change_the_vector() -> None:
    embedder = _local(query_prefix="query: ", document_prefix="passage: ")
    text = ["bearings of supplier S-1007"]
    query = embedder.embed_sync(text, "query")[0]
    document = embedder.embed_sync(text, "document")[0]
    assert _cosine(query, document) < 0.999
    assert embedder.prepared(text, "query") == ["query: bearings of supplier S-1007"]
    assert embedder.prepared(text, "document") == ["passage: bearings of supplier S-1007"]
    # Without prefixes both modes embed the same text.
    plain = _local()
    assert _cosine(plain.embed_sync(text, "query")[0], plain.embed_sync(text, "document")[0]) == (
        pytest.approx(1.0, abs=1e-6)
    )


def test_texts_are_cut_to_max_text_chars() -> None:
    embedder = _local(max_text_chars=40, document_prefix="doc: ")
    head = "Supplier S-1007 makes bearings in Turin"
    cut, whole = embedder.embed_sync([head + " and much more after it, " * 20, head], "document")
    assert embedder.prepared([head + "!" * 100], "document") == [("doc: " + head)[:40]]
    assert _cosine(cut, embedder.embed_sync([head[:35]], "document")[0]) == pytest.approx(
        1.0, abs=1e-6
    )
    assert len(cut) == len(whole) == 384


def test_embed_runs_in_a_worker_thread() -> None:
    embedder = _local()

    async def both() -> tuple[list[list[float]], list[list[float]]]:
        return await asyncio.gather(
            embedder.embed(["parts with a single supplier"], "query"),
            embedder.embed(["open purchase orders"], "query"),
        )

    first, second = asyncio.run(both())
    assert len(first[0]) == len(second[0]) == 384


def test_no_texts_no_vectors_and_one_str_is_refused() -> None:
    embedder = _local()
    assert embedder.embed_sync([], "query") == []
    with pytest.raises(TypeError, match="sequence of texts"):
        embedder.embed_sync("one text", "query")


def test_a_model_dir_holding_the_model_works(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(bundled_model_dir(), folder)
    text = ["tier-1 suppliers at high risk"]
    own = _local(model_dir=str(folder), threads=2).embed_sync(text, "query")[0]
    assert _cosine(own, _local().embed_sync(text, "query")[0]) == pytest.approx(1.0, abs=1e-5)


def test_a_model_dir_without_the_model_files_is_unavailable(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").write_text("{}")
    embedder = _local(model_dir=str(tmp_path))
    with pytest.raises(EmbeddingUnavailable, match=r"lacks model\.onnx, tokenizer_config\.json"):
        embedder.embed_sync(["a text"], "query")


def test_a_broken_model_file_is_unavailable(tmp_path: Path) -> None:
    shutil.copytree(bundled_model_dir(), tmp_path / "model")
    (tmp_path / "model" / "model.onnx").unlink()
    (tmp_path / "model" / "model.onnx").write_bytes(b"not an onnx model")
    with pytest.raises(EmbeddingUnavailable, match="cannot be loaded") as raised:
        _local(model_dir=str(tmp_path / "model")).embed_sync(["secret words"], "query")
    assert "secret words" not in str(raised.value)


def test_dimensions_that_do_not_match_the_model_are_unavailable() -> None:
    with pytest.raises(EmbeddingUnavailable, match=r"has 384 dimensions.*dimensions is 768"):
        _local(dimensions=768).embed_sync(["a text"], "query")


def test_a_model_fastembed_cannot_run_is_unavailable() -> None:
    with pytest.raises(EmbeddingUnavailable, match="'no-such-model' is not one fastembed"):
        _local(model="no-such-model").embed_sync(["a text"], "query")


def test_the_bundled_folder_is_made_once_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = bundled_model_dir()
    assert folder.parent == tmp_path / "lorebase" / "embeddings"
    assert sorted(path.name for path in folder.iterdir()) == [
        "config.json",
        "model.onnx",
        "special_tokens_map.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.txt",
    ]
    assert bundled_model_dir() == folder
    assert [path.name for path in folder.parent.iterdir()] == [folder.name]  # no staging left


def test_an_unwritable_cache_falls_back_to_a_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    with caplog.at_level(logging.WARNING, logger="lorebase_inference.embeddings"):
        folder = bundled_model_dir()
    try:
        assert (folder / "model.onnx").is_file()
        assert not folder.is_relative_to(blocker)
        assert "not writable" in caplog.text
    finally:
        shutil.rmtree(folder)


# -- an OpenAI-compatible endpoint -----------------------------------------------------------


def _endpoint(server_url: str, **members: object) -> EndpointEmbedder:
    embedder = embedder_for(
        EmbeddingSettings.model_validate(
            {"provider": "endpoint", "base_url": server_url, "model": "minilm", **members}
        )
    )
    assert isinstance(embedder, EndpointEmbedder)
    return embedder


def test_the_endpoint_gets_batches_with_the_key_and_headers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TEST_EMBED_KEY", "embed-key")
    monkeypatch.setenv("TEST_EMBED_HEADER", "header-value")
    with ScriptedModelServer() as server:
        embedder = _endpoint(
            server.base_url,
            endpoint_model="text-embedder-1",
            api_key="secret://env/TEST_EMBED_KEY",
            headers={"x-org": "secret://env/TEST_EMBED_HEADER", "x-plain": "plain"},
            batch_size=2,
            query_prefix="q: ",
        )
        texts = ["one", "two", "three"]
        vectors = embedder.embed_sync(texts, "query")
        again = embedder.embed_sync(texts[:1], "query")
        embedder.close()
    assert [len(vector) for vector in vectors] == [384, 384, 384]
    assert [request.body for request in server.requests] == [
        {"model": "text-embedder-1", "input": ["q: one", "q: two"]},
        {"model": "text-embedder-1", "input": ["q: three"]},
        {"model": "text-embedder-1", "input": ["q: one"]},
    ]
    headers = server.requests[0].headers
    assert headers["authorization"] == "Bearer embed-key"
    assert (headers["x-org"], headers["x-plain"]) == ("header-value", "plain")
    assert again[0] == vectors[0] != vectors[1]


def test_async_embed_through_the_endpoint() -> None:
    with (
        ScriptedModelServer() as server,
        _endpoint(server.base_url, document_prefix="d: ") as embedder,
    ):
        vectors = asyncio.run(embedder.embed(["a Record's text"], "document"))
    assert len(vectors[0]) == 384
    assert server.requests[0].body == {"model": "minilm", "input": ["d: a Record's text"]}
    assert "authorization" not in server.requests[0].headers


def test_an_endpoint_that_is_down_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_EMBED_KEY", "embed-key")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    embedder = _endpoint(f"http://127.0.0.1:{port}/v1", api_key="secret://env/TEST_EMBED_KEY")
    with embedder, pytest.raises(EmbeddingUnavailable) as raised:
        embedder.embed_sync(["private question"], "query")
    detail = str(raised.value)
    assert f"'minilm' at 127.0.0.1:{port} cannot be reached" in detail
    assert "private question" not in detail
    assert "embed-key" not in detail


def test_vectors_of_another_length_are_unavailable() -> None:
    with (
        ScriptedModelServer(dims=8) as server,
        _endpoint(server.base_url) as embedder,
        pytest.raises(EmbeddingUnavailable, match=r"vectors of 8 dimensions.*is 384"),
    ):
        embedder.embed_sync(["a text"], "query")


def test_an_error_status_is_unavailable() -> None:
    with ScriptedModelServer() as server:
        base = server.base_url.removesuffix("/v1")  # /embeddings without /v1: a 404
        with (
            _endpoint(base) as embedder,
            pytest.raises(EmbeddingUnavailable, match="answered HTTP 404"),
        ):
            embedder.embed_sync(["a text"], "query")


def test_an_endpoint_without_base_url_or_secret_is_unavailable() -> None:
    with pytest.raises(EmbeddingUnavailable, match="base_url is not set"):
        embedder_for(EmbeddingSettings(provider="endpoint"))
    with pytest.raises(EmbeddingUnavailable, match=r"secret of inference\.embeddings"):
        embedder_for(
            EmbeddingSettings(
                provider="endpoint",
                base_url="http://127.0.0.1:9/v1",
                api_key="secret://env/LOREBASE_TEST_UNSET_EMBED_KEY",
            )
        )
