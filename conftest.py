"""Fixtures every package's tests share: a real database on each backend, a real chat model.

Each test gets a fresh SQLite file, and, when LOREBASE_TEST_POSTGRES_DSN is set, a fresh
PostgreSQL schema (dropped afterwards). Without the DSN the PostgreSQL cases skip with a reason,
except in CI (CI=true), where a missing DSN is an error: CI must run them.

Tests marked `model` talk to a real chat model: `local_model` is llama.cpp's server on loopback
serving the GGUF of `local_model_path()` (`bash scripts/fetch-model.sh` fetches it), one per
session. Without the file they skip with a reason, except when LOREBASE_TEST_REQUIRE_MODEL=1
(.ci/run sets it once the fetch worked), where a missing model is an error.

A guard (the plugin lorebase_inference.model_guard) fails any test that is not marked `model`
and still reaches a real model: a connection to an address off loopback, or to the port of a
running LocalModelServer, or starting one.

`oidc_provider` is a real OpenID Connect provider on loopback (node, tests/oidc), one per session.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest

from lorebase_inference.testing import LocalModelServer, local_model_path
from lorebase_keeper.testing import OidcProvider
from lorebase_store import Store, import_directory

pytest_plugins = ["lorebase_inference.model_guard"]

POSTGRES_DSN = os.environ.get("LOREBASE_TEST_POSTGRES_DSN")
ROOT = Path(__file__).parent
SUPPLY = ROOT / "examples" / "supply"
LIBRARY = ROOT / "tests" / "data" / "library"
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL of an empty database on the backend of the test case."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'lorebase.sqlite'}"
        return
    if not POSTGRES_DSN:
        if os.environ.get("CI"):
            pytest.fail("CI must run the PostgreSQL tests: LOREBASE_TEST_POSTGRES_DSN is not set")
        pytest.skip("set LOREBASE_TEST_POSTGRES_DSN to run the PostgreSQL cases (.ci/run does)")
    schema = f"test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    separator = "&" if "?" in POSTGRES_DSN else "?"
    yield f"{POSTGRES_DSN}{separator}options={quote(f'-csearch_path={schema},public -ctimezone=UTC')}"
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as connection:
        connection.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    """An empty, migrated store."""
    opened = Store.open(database_url)
    yield opened
    opened.close()


@pytest.fixture
def supply(store: Store) -> Store:
    """A store holding the supply example (its import and its follow-up Revisions)."""
    import_directory(store, SUPPLY)
    return store


@pytest.fixture
def library(store: Store) -> Store:
    """A store holding the library test Domain (tests/data/library), the second Domain."""
    import_directory(store, LIBRARY)
    return store


def _model_gguf() -> Path:
    """The GGUF of the `model` tests, or skip (fail under LOREBASE_TEST_REQUIRE_MODEL=1)."""
    gguf = local_model_path()
    if not gguf.is_file():
        if os.environ.get("LOREBASE_TEST_REQUIRE_MODEL") == "1":
            pytest.fail(f"LOREBASE_TEST_REQUIRE_MODEL=1 but there is no GGUF at {str(gguf)!r}")
        pytest.skip(
            f"no chat model at {str(gguf)!r}: run `bash scripts/fetch-model.sh` "
            "(or set LOREBASE_TEST_MODEL_GGUF)"
        )
    return gguf


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip (or fail) a `model`-marked test before its fixtures start anything."""
    if item.get_closest_marker("model") is not None:
        _model_gguf()


@pytest.fixture(scope="session")
def local_model() -> Iterator[LocalModelServer]:
    """llama.cpp's OpenAI-compatible server on 127.0.0.1 with the real model (`model` tests)."""
    with LocalModelServer(_model_gguf()) as server:
        yield server


@pytest.fixture(scope="session")
def oidc_provider() -> Iterator[OidcProvider]:
    """A real OpenID Connect provider on loopback (tests/oidc/provider.mjs), one per session.

    A test that restarts it (`restart(rotate=True)`) or stops it leaves it running again with
    its current key; tests must not rely on which key that is (use `oidc_provider.kid`).
    """
    with OidcProvider() as provider:
        yield provider
