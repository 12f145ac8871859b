"""How the suite shares two cores (docs/testing.md): groups, order, time limits, a quick exit.

`make pytest` runs pytest-xdist with `--dist loadgroup`: each test goes to whichever worker is
free, except the tests of a group, which all run in one worker so that the group's session
fixtures start once:

- `model`: the tests marked `model` share one llama.cpp server (2-2.5 GB, minutes of work);
- `web`: the browser tests (tests/web) share one Keeper (with Scribe) and Guide.

Everything else, the real OpenID Connect provider's tests included, spreads over the workers
(each worker starts its own provider and shared Keepers: a second or two each).

Grouped tests run first, so that their long runs overlap the rest instead of ending the run
on one busy worker. A test marked `model` may take 15 minutes (pytest-timeout), every other
one the `timeout` of pyproject.toml; a hang fails with the stacks of every thread.

At the end of the session the heap is frozen (`gc.freeze`): the interpreter's last garbage
collections then skip the gigabytes the suite leaves behind instead of walking them for
minutes after the summary.
"""

from __future__ import annotations

import gc

import pytest

MODEL_TIMEOUT_S = 900
"""The limit of a test marked `model`: a real model on a loaded 2-core machine is slow."""

GROUPS = ("model", "web")
"""The groups, in the order they start."""


def group_of(item: pytest.Item) -> str | None:
    return next((name for name in GROUPS if item.get_closest_marker(name) is not None), None)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Groups for xdist, grouped tests first (in their order), longer limits for `model`."""
    rank: dict[int, int] = {}
    for item in items:
        group = group_of(item)
        rank[id(item)] = GROUPS.index(group) if group else len(GROUPS)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
        if group == "model" and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(MODEL_TIMEOUT_S))
    if getattr(config.option, "dist", "no") == "loadgroup":
        items.sort(key=lambda item: rank[id(item)])  # stable: each group keeps its order


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "xdist_group(name): run in the worker of this group")


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    gc.freeze()
