"""Auth mode `none` only on loopback (docs/auth.md).

Mode `none` makes every request an administrator with every clearance, so Keeper listens with it
only on an address no other machine, container or local user's alias can reach by accident:
exactly `127.0.0.1`, `::1`, or the name `localhost` when every address it resolves to is one of
those two. Other addresses of 127.0.0.0/8 (127.0.0.2, ...) are refused too: they are not the
address the demo uses, and a container or another user reaches them the same way as any other.
`keeper.auth.allow_none_off_loopback` lifts the refusal, loudly.

`create_app` checks `keeper.host`, and the server configuration (`lorebase_keeper.server`) checks
the address it actually binds, so no way of starting Keeper skips the check.
"""

from __future__ import annotations

import ipaddress
import logging
import socket

from lorebase_core.errors import UnsafeSettings
from lorebase_keeper.auth.oidc import require_oidc_setup
from lorebase_platform.settings import AuthSettings

logger = logging.getLogger("lorebase.keeper")

LOOPBACK_ADDRESSES = frozenset({ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")})
"""The addresses auth mode `none` may listen on."""

LOOPBACK_NAME = "localhost"


def is_loopback(host: str) -> bool:
    """Whether `host` is 127.0.0.1 or ::1, or `localhost` resolving to nothing but those."""
    try:
        return ipaddress.ip_address(host) in LOOPBACK_ADDRESSES
    except ValueError:
        pass
    if host.lower() != LOOPBACK_NAME:
        return False  # other names may resolve anywhere, now or after the check
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError:
        return False
    addresses = {ipaddress.ip_address(str(info[4][0])) for info in found}
    return bool(addresses) and addresses <= LOOPBACK_ADDRESSES


def require_safe_auth(host: str, auth: AuthSettings) -> None:
    """Refuse auth mode `none` off loopback, unless `allow_none_off_loopback` says otherwise.

    Raises:
        UnsafeSettings: mode `none` on `host`, which is not loopback, without the setting;
            or an OIDC mode without keeper.auth.oidc's issuer and client id.
    """
    require_oidc_setup(auth)
    if auth.mode != "none" or is_loopback(host):
        return
    if auth.allow_none_off_loopback:
        logger.warning(
            "auth mode none on %r (keeper.auth.allow_none_off_loopback): anyone who reaches it "
            "is an administrator with every clearance",
            host,
        )
        return
    raise UnsafeSettings(
        f"Keeper does not start in auth mode 'none' on {host!r}: that mode makes every request "
        "an administrator with every clearance, so Keeper listens with it on 127.0.0.1, ::1 "
        "or localhost only. Use API keys (keeper.auth.mode: api_key, "
        "`lorebase key create`), listen on 127.0.0.1 (keeper.host or --host), or, on a network "
        "you trust entirely, set keeper.auth.allow_none_off_loopback: true."
    )
