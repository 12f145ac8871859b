"""A Keeper's 429 reaches the model as the problem it is: code, detail and retry_after_s."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from lorebase_herald import Herald
from lorebase_keeper.app import create_app
from lorebase_keeper.testing import grant_key, serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_store import Store

from .conftest import text_of

pytestmark = pytest.mark.anyio


async def test_a_rate_limited_call_is_a_tool_error_with_the_problem(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'lorebase.sqlite'}")
    try:
        key_file = tmp_path / "reader.key"
        key_file.write_text(grant_key(store, "usr_reader") + "\n")
        one = {"per_minute": 1, "burst": 1}
        keeper = Settings(
            keeper={"auth": {"mode": "api_key"}, "rate_limits": {"classes": {"reads": one}}}
        )
        with serve_in_thread(create_app(keeper, store=store)) as url:
            herald = Herald(
                Settings(
                    herald={"keeper": {"base_url": url, "api_key": f"secret://file/{key_file}"}}
                )
            )
            try:
                async with Client(herald.mcp) as client:
                    results = [
                        await client.call_tool("lorebase_schema", {"domain": "supply"})
                        for _ in range(3)
                    ]
            finally:
                await herald.aclose()
    finally:
        store.close()
    # the store has no Domain: the first call is a 404, and it was charged
    assert "(404 domain-not-found)" in text_of(results[0])
    refused = [result for result in results if "(429 rate-limited)" in text_of(result)]
    assert refused, "one read a minute: a later call is refused"
    assert refused[0].is_error
    assert refused[0].structured_content is not None
    problem = refused[0].structured_content["problem"]
    assert (problem["code"], problem["class"]) == ("rate-limited", "reads")
    assert problem["retry_after_s"] >= 1
