"""The structured-output mode each chat endpoint accepts, remembered in a file across restarts.

A `ChatModel` given a `ModeMemory` asks it which request shape to start with, and tells it the
shape that got an answer, so a restarted process does not try a refused mode again. The file
(guide.mode_memory_file under guide.data_dir) holds only digests and modes:

    {"version": 1, "modes": {"<sha256 of endpoint, model, output settings>":
                             {"mode": "json_object", "at": 1796000000.0}}}

Entries expire `ttl_s` seconds after they were written (inference.mode_memory_ttl_s), and the
mode is tried again from the start. Writes merge with what other processes wrote, under an
exclusive lock (`fcntl.flock` on a `.lock` file next to it), into a temporary file renamed over
the old one, so a reader never sees half a file. A file that cannot be read or written (or
holds something else) gets one warning log line, is left alone, and the memory lives in the
process only from then on.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from lorebase_platform.settings import Settings

__all__ = ["ModeMemory", "RequestShape", "clear_modes", "mode_memory_for"]

logger = logging.getLogger(__name__)

RequestShape = Literal["json_schema", "json_object", "plain"]
"""How a structured answer is asked for: the `json_schema` response format, the `json_object`
one with the schema in the prompt, or the prompt alone."""

_SHAPES: frozenset[str] = frozenset(get_args(RequestShape))
_KEY = re.compile(r"^[0-9a-f]{64}$")
_VERSION = 1


@dataclass(frozen=True)
class _Entry:
    mode: RequestShape
    at: float
    """When it was written (seconds since the epoch)."""


class ModeMemory:
    """Remembered request shapes by endpoint key (`chat.mode_key`), in `path` or in memory.

    Args:
        path: the JSON file; None keeps the memory in this process only.
        ttl_s: seconds an entry is used before the modes are tried again.
        clock: the time now, in seconds since the epoch (tests move it).

    Safe to share between threads and between processes using the same file.
    """

    def __init__(
        self, path: Path | str | None, ttl_s: float, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = Path(path).expanduser() if path is not None else None
        self.ttl_s = ttl_s
        self._clock = clock
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._file_usable = self.path is not None

    @property
    def persistent(self) -> bool:
        """True while the file is in use; False for a memory of this process only."""
        return self._file_usable

    def get(self, key: str) -> RequestShape | None:
        """The remembered shape of `key`, or None when there is none or it has expired."""
        now = self._clock()
        with self._lock:
            entry = self._entries.get(key)
            if (entry is None or self._expired(entry, now)) and self._file_usable:
                entry = self._read().get(key)
                if entry is not None:
                    self._entries[key] = entry
            if entry is None or self._expired(entry, now):
                return None
            return entry.mode

    def put(self, key: str, mode: RequestShape) -> None:
        """Remember that `key` takes `mode`. An unexpired entry of the same mode is kept as it
        is (its age is what makes it expire), so only a change writes the file."""
        now = self._clock()
        with self._lock:
            current = self._entries.get(key)
            if current is not None and current.mode == mode and not self._expired(current, now):
                return
            entry = _Entry(mode, now)
            self._entries[key] = entry
            if self._file_usable:
                self._write(key, entry, now)

    def clear(self) -> int:
        """Forget every entry (in the file too); the number of entries the file held, or this
        process when there is no usable file."""
        with self._lock:
            held = len(self._entries)
            self._entries.clear()
            if not self._file_usable or self.path is None:
                return held
            try:
                return clear_modes(self.path)
            except (OSError, ValueError) as exc:
                self._give_up("written", exc)
                return held

    # -- the file ---------------------------------------------------------------------------------

    def _expired(self, entry: _Entry, now: float) -> bool:
        return now - entry.at >= self.ttl_s

    def _read(self) -> dict[str, _Entry]:
        assert self.path is not None
        try:
            return _load(self.path)
        except (OSError, ValueError) as exc:
            self._give_up("read", exc)
            return {}

    def _write(self, key: str, entry: _Entry, now: float) -> None:
        assert self.path is not None
        try:
            with _locked(self.path):
                entries = _load(self.path)
                entries[key] = entry
                fresh = {
                    name: kept for name, kept in entries.items() if not self._expired(kept, now)
                }
                _store(self.path, fresh)
        except (OSError, ValueError) as exc:
            self._give_up("written", exc)

    def _give_up(self, what: str, exc: Exception) -> None:
        """One warning, then this process only: the file is never touched again."""
        self._file_usable = False
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        logger.warning(
            "the structured-output mode memory %s cannot be %s (%s); modes are remembered for "
            "the life of this process only",
            self.path,
            what,
            reason,
        )


def mode_memory_for(settings: Settings) -> ModeMemory:
    """The mode memory of the settings: guide.mode_memory_file under guide.data_dir (`~`
    expanded; an absolute mode_memory_file is used as it is), expiring after
    inference.mode_memory_ttl_s."""
    path = Path(settings.guide.data_dir).expanduser() / settings.guide.mode_memory_file
    return ModeMemory(path.expanduser(), settings.inference.mode_memory_ttl_s)


def clear_modes(path: Path | str) -> int:
    """Delete every entry of the mode memory file at `path`; the number deleted (0 without a
    file). Expired entries count too: they were in the file.

    Raises:
        ValueError: the file does not hold a mode memory (it is left as it is).
        OSError: the file or its lock cannot be read or written.
    """
    path = Path(path).expanduser()
    if not path.exists():
        return 0
    with _locked(path):
        removed = len(_load(path))
        _store(path, {})
    return removed


def _load(path: Path) -> dict[str, _Entry]:
    """The entries of the file (none when it does not exist).

    Raises:
        ValueError: it is not a mode memory file (not JSON, another shape or version).
    """
    try:
        raw = path.read_text("utf-8")
    except FileNotFoundError:
        return {}
    document = json.loads(raw)
    if (
        not isinstance(document, dict)
        or document.get("version") != _VERSION
        or not isinstance(document.get("modes"), dict)
    ):
        raise ValueError(f"{str(path)!r} is not a mode memory file of version {_VERSION}")
    entries: dict[str, _Entry] = {}
    for key, value in document["modes"].items():
        entry = _entry(value)
        if _KEY.match(key) and entry is not None:  # a stray entry is dropped, not fatal
            entries[key] = entry
    return entries


def _entry(value: Any) -> _Entry | None:
    if not isinstance(value, dict):
        return None
    mode, at = value.get("mode"), value.get("at")
    if mode not in _SHAPES or not isinstance(at, int | float) or isinstance(at, bool):
        return None
    shape: RequestShape = mode
    return _Entry(shape, float(at))


def _store(path: Path, entries: dict[str, _Entry]) -> None:
    """Write the file atomically: a temporary file in the same folder, renamed over it."""
    document = {
        "version": _VERSION,
        "modes": {
            key: {"mode": entry.mode, "at": entry.at} for key, entry in sorted(entries.items())
        },
    }
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(document, file, indent=1)
            file.write("\n")
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on `path`'s `.lock` file (made with its folder when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock = path.with_name(f"{path.name}.lock")
    with open(lock, "a") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(file, fcntl.LOCK_UN)
