"""The receiver of docs/feed.md, run as written: real deliveries reach it, verified, once each.

The example is taken from the page (the code block that starts the receiver), bound to a free
loopback port instead of 0.0.0.0:8000, and run as its own process. A pass of deliver_pending with
Scribe's sender sends it the events of three commits, and the first of them comes again under
its Idempotency-Key (as at-least-once allows): the receiver prints each event once, and the
deliveries of a webhook with another secret are refused with 401.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from packages.store.tests.webhook_helpers import KEY, KEY_ENV, settings, touch

from lorebase_scribe import HttpxSender
from lorebase_store import (
    OutgoingDelivery,
    Store,
    create_webhook,
    deliver_pending,
    list_deliveries,
    signature,
)

pytestmark = pytest.mark.anyio

DOCS = Path(__file__).resolve().parents[3] / "docs" / "feed.md"
DOMAIN = "library"


def receiver_source(port: int) -> str:
    """The page's complete receiver, listening on 127.0.0.1:`port`."""
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    [source] = [block for block in blocks if "ThreadingHTTPServer" in block]
    listening = 'ThreadingHTTPServer(("0.0.0.0", 8000), Receiver)'
    assert listening in source
    return source.replace(listening, f'ThreadingHTTPServer(("127.0.0.1", {port}), Receiver)')


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_receiver(secret: str, port: int, tmp_path: Path) -> subprocess.Popen[str]:
    """The page's receiver as its own process, once it listens."""
    script = tmp_path / "receiver.py"
    script.write_text(receiver_source(port), encoding="utf-8")
    env = {**os.environ, "LOREBASE_WEBHOOK_SECRET": secret, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, str(script)], env=env, stdout=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1.0)  # any answer: it listens
            return process
        except httpx.TransportError:
            assert process.poll() is None, "the receiver of docs/feed.md stopped"
            assert time.monotonic() < deadline, "the receiver of docs/feed.md did not listen"
            time.sleep(0.05)


async def test_the_documented_receiver_verifies_and_drops_repeats(
    library: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    options = settings()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    hook = create_webhook(
        library, DOMAIN, url=f"{url}/hook", principal="usr_admin", settings=options
    )
    # another webhook at the same receiver: its secret is not the receiver's
    stranger = create_webhook(
        library, DOMAIN, url=f"{url}/other", principal="usr_admin", settings=options
    )
    process = start_receiver(hook.secret, port, tmp_path)
    try:
        sequences = [
            touch(library, DOMAIN, "Book", "B-0001", {"pages": 200 + number}) for number in range(3)
        ]
        async with HttpxSender(options) as sender:
            await deliver_pending(library, sender, options, domain=DOMAIN)
            assert {
                item.status for item in list_deliveries(library, DOMAIN, hook.webhook.id).items
            } == {"delivered"}
            # at least once: the first event comes again, under its Idempotency-Key
            body = json.dumps(
                {"sequence": sequences[0], "type": "revision.committed", "branch": "main"}
            ).encode()
            digest = hashlib.sha256(hook.secret.encode()).digest()
            again = OutgoingDelivery(
                id="dlv_again",
                webhook_id=hook.webhook.id,
                url=f"{url}/hook",
                headers={
                    "Content-Type": "application/json",
                    "Idempotency-Key": f"evt_{sequences[0]}",
                    "Lorebase-Signature": signature(digest, int(time.time()), body),
                },
                body=body,
            )
            assert (await sender.send(again)).status == 204
        refused = list_deliveries(library, DOMAIN, stranger.webhook.id).items
        assert refused
        assert {item.last_status for item in refused} == {401}
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=10)
    printed = [line.split() for line in output.splitlines() if line.strip()]
    assert sorted(int(sequence) for sequence, _, _ in printed) == sorted(sequences)
    assert {(kind, branch) for _, kind, branch in printed} == {("revision.committed", "main")}
