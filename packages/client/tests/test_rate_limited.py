"""A Keeper's 429 reaches the caller as the problem it is: `RateLimited` / `QuotaExceeded`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lorebase_client import AsyncLorebaseClient, LorebaseClient, response_of
from lorebase_core.errors import DomainNotFound, QuotaExceeded, RateLimited, TooManyRequests
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import grant_key, serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_store import Store

ONE = {"per_minute": 1, "burst": 1}


@pytest.fixture(scope="module")
def limited_keeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A Keeper allowing one read and one search a minute (the search with a quota of one)."""
    directory: Path = tmp_path_factory.mktemp("limited")
    store = Store.open(f"sqlite:///{directory / 'lorebase.sqlite'}")
    try:
        key = grant_key(store, "usr_reader")
        classes = {"reads": ONE, "search": {"per_minute": 60, "burst": 5, "per_day": 1}}
        settings = Settings(
            keeper={"auth": {"mode": "api_key"}, "rate_limits": {"classes": classes}}
        )
        with serve_in_thread(create_app(settings, store=store)) as url:
            yield url, key
    finally:
        store.close()


def test_the_client_raises_rate_limited_with_retry_after(limited_keeper: tuple[str, str]) -> None:
    url, key = limited_keeper
    with LorebaseClient(url, api_key=key) as client:
        client.domains()
        with pytest.raises(RateLimited) as refused:
            client.domains()
    error = refused.value
    assert isinstance(error, TooManyRequests)
    assert error.retry_after_s >= 1
    assert error.extra["class"] == "reads"
    assert error.extra["limit"] == 1
    response = response_of(error)
    assert response is not None
    assert response.headers["Retry-After"] == str(error.retry_after_s)


@pytest.mark.anyio
async def test_the_async_client_raises_quota_exceeded(limited_keeper: tuple[str, str]) -> None:
    url, key = limited_keeper
    async with AsyncLorebaseClient(url, api_key=key) as client:
        # the store has no Domain: the first search is refused, but it was charged
        with pytest.raises(DomainNotFound):
            await client.search("supply", "Kavsen")
        with pytest.raises(QuotaExceeded) as refused:
            await client.search("supply", "Kavsen")
    assert refused.value.extra["class"] == "search"
    assert refused.value.extra["limit"] == 1
    assert refused.value.retry_after_s >= 1
