"""A real Keeper under uvicorn on 127.0.0.1 (a free port), shared by the client and CLI tests.

The session's Keeper serves a fresh SQLite file holding the supply example and a `notes` Domain
whose keys need percent-encoding, in auth mode `api_key`, with two principals:

- `usr_admin`: admin on both Domains;
- `usr_viewer`: viewer on supply, narrowed to the Kind Supplier (no history reads).

supply has two tags: `v1` on its head and `import/2026-10-01` on the import Revision.

Tests only read, or create branches under names of their own, so they run in any order.

`demo_keeper` is another Keeper, set up as `make demo` sets one up (the supply example and the
principals of `lorebase demo`, their profiles in the data directory), for the tests that write
as a user of the demo would: docs/tutorial.md.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from lorebase_client import AsyncLorebaseClient, LorebaseClient
from lorebase_core.changes import UpsertRecord
from lorebase_core.schema import load_schema
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import assert_problem, demo_keeper, grant_key, serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_store import Store, import_directory
from lorebase_store.testing import commit_changes

ROOT = Path(__file__).resolve().parents[3]
SUPPLY = ROOT / "examples" / "supply"

NOTES_SCHEMA = """
domain:
  name: notes
  title: Notes whose keys are free text
kinds:
  Note:
    description: A note named by any text.
    key: [name]
    title: name
    attributes:
      name: {type: string}
      body: {type: string}
"""

AWKWARD_KEYS = {
    "space": "two words",
    "unicode": "Zürich café ü",
    "percent": "100% sure",
    "query": "what?#fragment",
    "plus-and-amp": "a+b&c=d",
    "dots": "...",
    "slash": "Poznan/Plant 1",
}
"""Keys of Notes in the `notes` Domain, by what makes them awkward in a URL."""


@dataclass(frozen=True)
class LiveKeeper:
    """A Keeper listening on loopback, and the keys of its principals."""

    url: str
    admin_key: str
    viewer_key: str
    supply_head: str
    """The head Revision of supply/main when the session started."""
    supply_import: str
    """The first Revision of supply: the import of examples/supply."""
    note_keys: dict[str, str]
    """The keys of the Notes of the `notes` Domain (AWKWARD_KEYS)."""
    store: Store
    """The store Keeper serves (tests build in-process apps over it; they never write to it)."""


def _add_notes(store: Store) -> None:
    store.create_domain(load_schema(NOTES_SCHEMA), created_by="usr_tester")
    changes = [
        UpsertRecord("Note", key, {"name": key, "body": f"a note named {key!r}"})
        for key in AWKWARD_KEYS.values()
    ]
    commit_changes(store, changes, domain="notes", message="Notes with awkward keys")


SHARED_KEEPER = Settings(keeper={"auth": {"mode": "api_key"}, "rate_limits": {"enabled": False}})
"""The session's Keeper: every test of the session writes as the same admin, faster than the
default write burst (60) allows, so its rate limits are off; Keeper's tests check the limits."""


@pytest.fixture(scope="session")
def keeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveKeeper]:
    directory = tmp_path_factory.mktemp("keeper")
    store = Store.open(f"sqlite:///{directory / 'lorebase.sqlite'}")
    try:
        import_directory(store, SUPPLY)
        _add_notes(store)
        admin_key = grant_key(store, "usr_admin", domain="supply", role="admin")
        store.add_grant("usr_admin", domain="notes", role="admin")
        viewer_key = grant_key(
            store, "usr_viewer", domain="supply", role="viewer", kinds=["Supplier"]
        )
        revisions = store.log("supply", limit=1000)
        supply_head, supply_import = revisions[0].id, revisions[-1].id
        store.create_tag("supply", "v1", supply_head, created_by="usr_tester")
        store.create_tag("supply", "import/2026-10-01", supply_import, created_by="usr_tester")
        app = create_app(SHARED_KEEPER, store=store)
        with serve_in_thread(app) as url:
            yield LiveKeeper(
                url,
                admin_key,
                viewer_key,
                supply_head,
                supply_import,
                dict(AWKWARD_KEYS),
                store,
            )
    finally:
        store.close()


@dataclass(frozen=True)
class DemoKeeper:
    """A Keeper on loopback over a demo's data directory (`XDG_DATA_HOME` of its commands)."""

    url: str
    data_home: Path
    """Holds `lorebase/lorebase.sqlite` and `lorebase/profiles.toml`, where the demo puts them."""


@pytest.fixture(name="demo_keeper", scope="module")
def demo_data_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoKeeper]:
    """A fresh Keeper as `make demo` leaves one: API keys, the demo's principals and profiles."""
    data_home = tmp_path_factory.mktemp("demo")
    directory = data_home / "lorebase"
    directory.mkdir()
    with demo_keeper(SUPPLY, directory, {"auth": {"mode": "api_key"}}) as live:
        yield DemoKeeper(live.url, data_home)


ProblemCheck = Callable[[httpx.Response | None, int, str], dict[str, Any]]


@pytest.fixture(name="assert_problem", scope="session")
def problem_check() -> ProblemCheck:
    """`lorebase_keeper.testing.assert_problem`, for tests that get the response of an error."""
    return assert_problem


Env = dict[str, str | None]
"""Environment variables of a CLI run (None: unset)."""


@pytest.fixture
def env(keeper: LiveKeeper) -> Env:
    """Where Keeper is and who calls, as a CLI run's environment says it: the admin, on supply."""
    return {
        "LOREBASE_URL": keeper.url,
        "LOREBASE_API_KEY": keeper.admin_key,
        "LOREBASE_DOMAIN": "supply",
    }


@pytest.fixture
def admin(keeper: LiveKeeper) -> Iterator[LorebaseClient]:
    """A sync client with the admin's key."""
    with LorebaseClient(keeper.url, api_key=keeper.admin_key) as client:
        yield client


@pytest.fixture
def viewer(keeper: LiveKeeper) -> Iterator[LorebaseClient]:
    """A sync client with the key of the viewer narrowed to Supplier."""
    with LorebaseClient(keeper.url, api_key=keeper.viewer_key) as client:
        yield client


@pytest.fixture
async def async_admin(keeper: LiveKeeper) -> AsyncIterator[AsyncLorebaseClient]:
    """An async client with the admin's key."""
    async with AsyncLorebaseClient(keeper.url, api_key=keeper.admin_key) as client:
        yield client


@pytest.fixture
async def async_viewer(keeper: LiveKeeper) -> AsyncIterator[AsyncLorebaseClient]:
    """An async client with the key of the viewer narrowed to Supplier."""
    async with AsyncLorebaseClient(keeper.url, api_key=keeper.viewer_key) as client:
        yield client
