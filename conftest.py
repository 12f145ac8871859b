"""Fixtures every package's tests share: a real database on each backend, a real chat model.

Each test gets a fresh SQLite file, and, when LOREBASE_TEST_POSTGRES_DSN is set, a fresh
PostgreSQL database (dropped afterwards), copied from a template when it starts migrated or
holding the supply example. Without the DSN the PostgreSQL cases skip with a reason,
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
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
import sqlean

from lorebase_inference.testing import LocalModelServer, local_model_path
from lorebase_keeper.testing import Keys, OidcProvider, make_keys
from lorebase_store import Store, import_directory

pytest_plugins = [
    "lorebase_inference.model_guard",
    "tests.suite.collection",
    "tests.suite.workers",
]

POSTGRES_DSN = os.environ.get("LOREBASE_TEST_POSTGRES_DSN")
ROOT = Path(__file__).parent
SUPPLY = ROOT / "examples" / "supply"
LIBRARY = ROOT / "tests" / "data" / "library"
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


CONTENTS = ("supply", "library", "principals")
"""The fixtures that fill a test's database, in the order their templates get them: the supply
example, the library Domain, and the principals and API keys of `make_keys` (Keeper's `keys`)."""


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL of a database of its own on the backend of the test case.

    Empty, unless the test also asks for `store` (then migrated) or for `supply`, `library` or
    `principals` (then holding them too): such a database is a copy of a template made once per
    session (a file copy on SQLite, `CREATE DATABASE ... TEMPLATE` on PostgreSQL), since
    migrating and importing again for each of thousands of tests would take most of the suite's
    time (a copy takes 15 ms on PostgreSQL when its data is in memory: scripts/start-postgres.sh).
    """
    wanted = _template_of(request)
    if request.param == "sqlite":
        path = tmp_path / "lorebase.sqlite"
        if wanted is not None:
            shutil.copyfile(_sqlite_template(request, wanted), path)
        yield f"sqlite:///{path}"
        return
    if not POSTGRES_DSN:
        if os.environ.get("CI"):
            pytest.fail("CI must run the PostgreSQL tests: LOREBASE_TEST_POSTGRES_DSN is not set")
        pytest.skip("set LOREBASE_TEST_POSTGRES_DSN to run the PostgreSQL cases (.ci/run does)")
    name = f"lbt_{uuid.uuid4().hex[:16]}"
    template = _postgres_template(wanted)
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as connection:
        # FILE_COPY: PostgreSQL 15's default (WAL_LOG) also writes every page to the WAL
        connection.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
    yield _postgres_url(name)
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def _template_of(request: pytest.FixtureRequest) -> tuple[str, ...] | None:
    """What the test's database starts with: None (empty), or migrated with these imported."""
    names = set(request.fixturenames)
    if "store" not in names:
        return None
    return tuple(name for name in CONTENTS if name in names)


_TEMPLATES: dict[tuple[str, object], str] = {}
"""Template databases by backend and what they hold: file paths (SQLite), names (PostgreSQL)."""

_KEYS: dict[tuple[str, tuple[str, ...]], Keys] = {}
"""The API keys `make_keys` made in each template holding `principals`, by backend and contents."""


def _fill(url: str, contents: tuple[str, ...]) -> Keys | None:
    store = Store.open(url)
    keys = None
    try:
        for name in contents:
            if name == "principals":
                assert "supply" in contents, "the principals' grants are on the supply Domain"
                keys = make_keys(store)
            else:
                import_directory(store, {"supply": SUPPLY, "library": LIBRARY}[name])
    finally:
        store.close()
    return keys


def _keep_keys(backend: str, contents: tuple[str, ...], keys: Keys | None) -> None:
    if keys is not None:
        _KEYS[backend, contents] = keys


def _sqlite_template(request: pytest.FixtureRequest, contents: tuple[str, ...]) -> Path:
    found = _TEMPLATES.get(("sqlite", contents))
    if found is None:
        factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
        path = factory.mktemp("template") / "lorebase.sqlite"
        _keep_keys("sqlite", contents, _fill(f"sqlite:///{path}", contents))
        connection = sqlean.connect(str(path))  # the WAL folded in: one file to copy
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
        found = _TEMPLATES[("sqlite", contents)] = str(path)
    return Path(found)


def _postgres_template(contents: tuple[str, ...] | None) -> str:
    """A template database: empty but for the extensions scripts/start-postgres.sh creates in
    its database (None), or migrated and holding `contents`."""
    assert POSTGRES_DSN is not None
    what = "empty" if contents is None else "_".join(contents) or "migrated"
    found = _TEMPLATES.get(("postgresql", what))
    if found is None:
        found = f"lbt_template_{os.getpid()}_{what}"
        with psycopg.connect(POSTGRES_DSN, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{found}" WITH (FORCE)')
            connection.execute(f'CREATE DATABASE "{found}"')
        with psycopg.connect(_postgres_url(found), autocommit=True) as connection:
            for extension in ("vector", "pg_trgm"):
                connection.execute(f"CREATE EXTENSION IF NOT EXISTS {extension}")
        if contents is not None:
            _keep_keys("postgresql", contents, _fill(_postgres_url(found), contents))
        _TEMPLATES[("postgresql", what)] = found
    return found


def _postgres_url(database: str) -> str:
    assert POSTGRES_DSN is not None
    return urlunsplit(urlsplit(POSTGRES_DSN)._replace(path=f"/{database}"))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Drop this session's PostgreSQL templates."""
    templates = [name for (backend, _), name in _TEMPLATES.items() if backend == "postgresql"]
    if not templates or not POSTGRES_DSN:
        return
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as connection:
        for name in templates:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    """A migrated store (holding `supply` and `library` when the test asks for them too)."""
    opened = Store.open(database_url)
    yield opened
    opened.close()


@pytest.fixture
def supply(store: Store) -> Store:
    """A store holding the supply example (its import and its follow-up Revisions)."""
    return store


@pytest.fixture
def library(store: Store) -> Store:
    """A store holding the library test Domain (tests/data/library), the second Domain."""
    return store


@pytest.fixture
def principals(supply: Store, request: pytest.FixtureRequest) -> Keys:
    """The keys of the principals `lorebase_keeper.testing.make_keys` gave the supply Domain,
    which the test's database holds from its template."""
    contents = _template_of(request)
    assert contents is not None
    return _KEYS[supply.backend, contents]


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
