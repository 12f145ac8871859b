"""`AsyncLorebaseClient`: Keeper's API over HTTP, reads and writes, on `httpx.AsyncClient`.

Its methods come in two groups, a module each: reads.py (Records, Links, history, queries, the
graph, context packs, search, resolve, health, Revisions, branches, tags, the feed) and writes.py
(Operations, Proposals, branches made and merged, the audit); trace.py and webhooks.py are its
`trace` and `webhooks`. All build their requests in routes.py and read the answers in
answers.py, through base.py (the connection).
"""

from __future__ import annotations

from lorebase_client._async.reads import AsyncReads
from lorebase_client._async.writes import AsyncWrites


class AsyncLorebaseClient(AsyncReads, AsyncWrites):
    """A client of Keeper's API: its reads, and its writes (Operations, Proposals, merges).

    Every method returns the parsed answer (`Answer`, a `dict`; `Text` for Markdown) and raises
    the typed error of a problem document (`KindNotFound`, `HistoryForbidden` ...), with the
    response attached. Reads of Records take `branch` (default: the Domain's default branch) and
    `at` (a Revision id, a unique prefix of one, or a tag); cacheable reads take `etag` (see
    `Answer`).

    Args:
        base_url: Keeper's address (default: $LOREBASE_URL, else http://127.0.0.1:8080).
        api_key: sent as `Authorization: Bearer` (default: $LOREBASE_API_KEY).
        session_id: the agent trace's session of every call (`X-Lorebase-Session`): 1 to 128
            characters of A-Z a-z 0-9 . _ : -.
        trace: `"on"` opts every call in to the agent trace (`X-Lorebase-Trace`), `"debug"`
            adds query plans (needs trace.explain); None sends no opt-in.
        tool: the tool making the calls (`X-Lorebase-Tool`), for example an MCP tool's name.
        timeout: seconds, or an `httpx.Timeout`.
        transport: an httpx transport (`httpx.MockTransport` for a stub; the async client takes
            `httpx.ASGITransport(app)` to run Keeper in process).

    Example:
        ```python
        async with AsyncLorebaseClient("http://127.0.0.1:8080", api_key="lbk_...") as client:
            supplier = await client.record("supply", "Supplier", "S-1001", lineage=True)
            async for change in client.iter_history("supply", "Supplier", "S-1001"):
                print(change["revision"], change["message"])
        ```
    """

    def __repr__(self) -> str:
        return f"AsyncLorebaseClient({self.base_url!r})"
