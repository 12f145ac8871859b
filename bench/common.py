"""What the benchmarks share: the generated `bench` Domain, fresh databases, the machine, logging.

The Domain is one Kind, `Item`, of N generated Records (`write_dataset`); with `links=True` it
also has two Relations from Item to Item, `uses` (2 to 4 Links from each Item, with a Link
Attribute) and `replaces` (0 to 2), so that graph reads have a realistic fan-out. The Items are
the same with or without Links: the Links come from a random generator of their own.

The benchmark scripts put this directory on `sys.path` and import this module as `common`.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import date, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa  # noqa: TID251 (the benchmarks measure the store against raw SQL)
import sqlean

from lorebase_store import create_store_engine

ROOT = Path(__file__).resolve().parents[1]
DSN_VARIABLE = "LOREBASE_BENCH_POSTGRES_DSN"
DOMAIN = "bench"
KIND = "Item"
STATUSES = ("active", "retired", "draft")
COLUMNS = ("item_code", "name", "quantity", "price", "released", "status")
USES = (2, 4)
"""`uses` Links from each Item: between 2 and 4 (uniformly), to other Items at random."""
REPLACES = (0, 2)
"""`replaces` Links from each Item: between 0 and 2."""
WORD_COLUMNS = ("family", "notes")
"""With `words=True` (bench/context): two more string Attributes, for search and resolve."""
FAMILIES = tuple(
    f"{first}{second}"
    for first in ("alder", "birch", "cedar", "maple")
    for second in ("line", "works", "craft", "forge", "field", "stone")
)
"""The 24 values of `family` (few enough for POST /resolve to index them)."""
NOTE_WORDS = 3
"""Words in each Item's `notes`, drawn from `vocabulary()`."""

SCHEMA_YAML = """\
domain:
  name: bench
  title: Store benchmark
  description: Generated items for bench/store/run.py.
kinds:
  Item:
    description: A generated item.
    key: [item_code]
    title: name
    attributes:
      item_code: {type: string, pattern: "^I-[0-9]{7}$"}
      name: {type: string, required: true}
      quantity: {type: integer, min: 0}
      price: {type: "decimal(10,2)", min: 0}
      released: {type: date}
      status: {type: enum, values: [active, retired, draft]}
"""

RELATIONS_YAML = """\
relations:
  uses:
    from: Item
    to: Item
    inverse: used_in
    cardinality: many_to_many
    description: The item is built with the other item.
    attributes:
      per_unit: {type: integer, min: 1}
  replaces:
    from: Item
    to: Item
    inverse: replaced_by
    cardinality: many_to_many
    description: The item replaces the other item.
"""

WORDS_YAML = """\
      family: {type: string}
      notes: {type: string}
"""

IMPORT_YAML = """\
domain: bench
author: usr_bench
message: Import the benchmark items
time: "2026-01-01T00:00:00Z"
origin_ref: {origin}
"""


# -- data ------------------------------------------------------------------------------------
def item_key(number: int) -> str:
    return f"I-{number:07d}"


def item_row(number: int, rng: random.Random) -> dict[str, str]:
    """One Item as CSV text, every Attribute set."""
    released = date(2020, 1, 1) + timedelta(days=rng.randrange(2000))
    return {
        "item_code": item_key(number),
        "name": f"Item {number} {rng.choice(('bolt', 'gear', 'valve', 'seal', 'shaft'))}",
        "quantity": str(rng.randrange(10_000)),
        "price": f"{rng.randrange(1, 10_000_000) / 100:.2f}",
        "released": released.isoformat(),
        "status": rng.choice(STATUSES),
    }


def vocabulary(size: int = 2000) -> list[str]:
    """`size` distinct pronounceable words of 6 letters (3 syllables), in a fixed order."""
    consonants, vowels = "bdfgklmnprstvz", "aeiou"
    syllables = [c + v for c in consonants for v in vowels]
    rng = random.Random(2026)
    found: dict[str, None] = {}
    while len(found) < size:
        found["".join(rng.choice(syllables) for _ in range(3))] = None
    return list(found)


def word_values(records: int, seed: int) -> Iterator[dict[str, str]]:
    """`family` and `notes` of Items 1..records, from a generator of their own."""
    rng = random.Random(seed)
    words = vocabulary()
    for _number in range(records):
        yield {
            "family": rng.choice(FAMILIES),
            "notes": " ".join(rng.sample(words, NOTE_WORDS)),
        }


def others(number: int, records: int, count: int, rng: random.Random) -> list[int]:
    """`count` distinct Items other than `number`, at random, in increasing order."""
    chosen: set[int] = set()
    while len(chosen) < min(count, records - 1):
        other = rng.randrange(1, records + 1)
        if other != number:
            chosen.add(other)
    return sorted(chosen)


def write_links(directory: Path, records: int, seed: int) -> int:
    """data/uses.csv and data/replaces.csv; the number of Links written."""
    rng = random.Random(seed)
    written = 0
    with (
        (directory / "data" / "uses.csv").open("w", newline="", encoding="utf-8") as uses,
        (directory / "data" / "replaces.csv").open("w", newline="", encoding="utf-8") as replaces,
    ):
        uses_writer, replaces_writer = csv.writer(uses), csv.writer(replaces)
        uses_writer.writerow(("from", "to", "per_unit"))
        replaces_writer.writerow(("from", "to"))
        for number in range(1, records + 1):
            key = item_key(number)
            for other in others(number, records, rng.randint(*USES), rng):
                uses_writer.writerow((key, item_key(other), rng.randint(1, 12)))
                written += 1
            for other in others(number, records, rng.randint(*REPLACES), rng):
                replaces_writer.writerow((key, item_key(other)))
                written += 1
    return written


def write_dataset(
    directory: Path,
    records: int,
    seed: int = 7,
    *,
    links: bool = False,
    words: bool = False,
    origin: str = "bench/store",
) -> Path:
    """schema.yaml, import.yaml and data/Item.csv of `records` rows (and the Links' files).

    With `words`, the Items also have `family` and `notes` (`word_values`, a generator of their
    own: the other Attributes and the Links are the same as without them).
    """
    (directory / "data").mkdir(parents=True)
    schema = SCHEMA_YAML + (WORDS_YAML if words else "") + (RELATIONS_YAML if links else "")
    (directory / "schema.yaml").write_text(schema, encoding="utf-8")
    (directory / "import.yaml").write_text(IMPORT_YAML.format(origin=origin), encoding="utf-8")
    rng = random.Random(seed)
    with (directory / "data" / f"{KIND}.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS + (WORD_COLUMNS if words else ()))
        writer.writeheader()
        rows = (item_row(number, rng) for number in range(1, records + 1))
        if words:
            extra = word_values(records, seed + 2)
            rows = ({**row, **next(extra)} for row in rows)
        writer.writerows(rows)
    if links:
        write_links(directory, records, seed + 1)
    return directory


# -- databases -------------------------------------------------------------------------------
class Databases:
    """Fresh, empty databases of one backend for one run, removed by `close`.

    PostgreSQL databases are private schemas (`bench_<label>_<random>`) of the DSN's database,
    dropped by `close`; the DSN defaults to $LOREBASE_BENCH_POSTGRES_DSN.
    """

    def __init__(self, backend: str, workdir: Path, dsn: str | None = None) -> None:
        self.backend = backend
        self.workdir = workdir
        self.dsn = ""
        if backend == "postgresql":
            self.dsn = dsn or os.environ.get(DSN_VARIABLE, "")
        self.schemas: list[str] = []
        if backend == "postgresql" and not self.dsn:
            raise SystemExit(
                f"--backend postgresql needs --dsn or {DSN_VARIABLE} (bench/README.md)"
            )

    def new_url(self, label: str) -> str:
        if self.backend == "sqlite":
            return f"sqlite:///{self.workdir / f'{label}-{uuid.uuid4().hex[:8]}.sqlite'}"
        schema = f"bench_{label}_{uuid.uuid4().hex[:12]}"
        self._admin(f'CREATE SCHEMA "{schema}"')
        self.schemas.append(schema)
        separator = "&" if "?" in self.dsn else "?"
        options = quote(f"-csearch_path={schema},public -ctimezone=UTC")
        return f"{self.dsn}{separator}options={options}"

    def close(self) -> None:
        while self.schemas:
            self._admin(f'DROP SCHEMA "{self.schemas.pop()}" CASCADE')

    def _admin(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as connection:
            connection.execute(statement)


@contextmanager
def workspace(backend: str, dsn: str | None = None) -> Iterator[tuple[Path, Databases]]:
    """A temporary directory and the run's `Databases`, both removed at the end."""
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lorebase-bench-")))
        databases = Databases(backend, workdir, dsn)
        stack.callback(databases.close)
        yield workdir, databases


# -- the machine and the code ----------------------------------------------------------------
def _git(*args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    except OSError:
        return ""
    return done.stdout if done.returncode == 0 else ""


def git_commit() -> str:
    """`git rev-parse --short HEAD`, `-dirty` plus a digest of the diff when tracked files changed."""
    commit = _git("rev-parse", "--short", "HEAD").strip() or "unknown"
    diff = _git("diff", "HEAD")
    if not diff:
        return commit
    return f"{commit}-dirty-{hashlib.sha256(diff.encode()).hexdigest()[:8]}"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def server_version(url: str) -> str:
    engine = create_store_engine(url)
    try:
        with engine.connect() as connection:
            if engine.dialect.name == "sqlite":
                return str(connection.exec_driver_sql("select sqlite_version()").scalar())
            return str(connection.exec_driver_sql("show server_version").scalar())
    finally:
        engine.dispose()


def machine_info(backend: str, url: str) -> dict[str, Any]:
    import psycopg

    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "load_average": [round(load, 2) for load in os.getloadavg()],
        "python": platform.python_version(),
        "sqlite": sqlean.sqlite_version,
        "sqlalchemy": sa.__version__,
        "psycopg": psycopg.__version__,
        "backend": backend,
        "server_version": server_version(url),
        "git_commit": git_commit(),
    }


_STARTED = time.perf_counter()


def log(message: str) -> None:
    print(f"[bench {time.perf_counter() - _STARTED:6.1f}s] {message}", file=sys.stderr, flush=True)


def load_reads() -> Any:
    """bench/reads/run.py as a module: its servers, timing and raw-SQL helpers are reused by the
    other benchmarks (bench/ is not a package, so it is loaded from its file, once)."""
    name = "bench_reads_run"
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().parent / "reads" / "run.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
