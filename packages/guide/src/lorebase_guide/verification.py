"""Who is calling, asked of Keeper before any limit or model call (docs/guide.md,
"Authentication").

`Verifier.verify` sends GET /api/v1/auth/whoami with exactly the caller's forwarded headers;
for a session cookie it first reads GET /api/v1/auth/session with the cookie and compares the
session's csrf_token with the caller's X-CSRF-Token (403 csrf unless they match). At most
guide.limits.max_concurrent_verifications checks run at once; past that, 429 busy. Keeper's
answers map to Guide's refusals: 401 (and a session Keeper cannot find) -> 401 unauthorized,
429 -> 429 rate with Keeper's Retry-After, anything else or no answer -> 502
keeper_unavailable. Nothing here logs a credential or a value.
"""

from __future__ import annotations

import hmac
import logging

import httpx

from lorebase_core.errors import (
    CallerRateLimited,
    CsrfRejected,
    GuideBusy,
    KeeperUnavailable,
    Unauthorized,
)
from lorebase_guide.credentials import Presented
from lorebase_platform.settings import GuideKeeperSettings

logger = logging.getLogger("lorebase_guide.verification")

WHOAMI_PATH = "/api/v1/auth/whoami"
SESSION_PATH = "/api/v1/auth/session"
HEALTHZ_PATH = "/healthz"


class Verifier:
    """Credential checks and the readiness probe against one Keeper."""

    def __init__(
        self,
        settings: GuideKeeperSettings,
        max_concurrent: int,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = settings.base_url.rstrip("/")
        self.max_concurrent = max_concurrent
        self.in_flight = 0
        # trust_env off: no .netrc credential or proxy setting of the environment may add to
        # what the caller sent. No default headers: each request carries the caller's only.
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(settings.timeout_s),
            transport=transport,
            trust_env=False,
            follow_redirects=False,
        )
        url = httpx.URL(self.base_url)
        self._where = f"{url.host}:{url.port}" if url.port else str(url.host)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def verify(self, credential: Presented) -> str:
        """The principal Keeper takes the caller for, or the refusal."""
        if self.in_flight >= self.max_concurrent:
            raise GuideBusy(
                f"Guide is checking {self.in_flight} credentials with Keeper already "
                "(guide.limits.max_concurrent_verifications): try again in a moment",
                retry_after_s=1,
            )
        self.in_flight += 1
        try:
            if credential.kind == "session":
                await self._check_csrf(credential)
            answer = await self._get(WHOAMI_PATH, credential)
        finally:
            self.in_flight -= 1
        principal = answer.get("principal")
        if not isinstance(principal, str) or not principal:
            raise KeeperUnavailable(f"Keeper at {self._where} answered whoami without a principal")
        return principal

    async def ready(self) -> bool:
        """Whether Keeper answers GET /healthz with 200 (no credential sent)."""
        try:
            response = await self._http.get(HEALTHZ_PATH)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    async def _check_csrf(self, credential: Presented) -> None:
        session = await self._get(SESSION_PATH, credential, session=True)
        expected = session.get("csrf_token")
        given = credential.csrf_token or ""
        if not isinstance(expected, str) or not hmac.compare_digest(
            expected.encode(), given.strip().encode()
        ):
            raise CsrfRejected(
                "The X-CSRF-Token header is not the token of this session: read csrf_token "
                "from GET /api/v1/auth/session and send it"
            )

    async def _get(
        self, path: str, credential: Presented, *, session: bool = False
    ) -> dict[str, object]:
        try:
            response = await self._http.get(path, headers=dict(credential.headers))
        except httpx.HTTPError as error:
            logger.warning("Keeper did not answer a credential check: %s", type(error).__name__)
            raise KeeperUnavailable(
                f"Keeper at {self._where} did not answer ({type(error).__name__}): check "
                "guide.keeper.base_url and that Keeper runs"
            ) from None
        status = response.status_code
        # A session Keeper does not know, or sessions off (409 sign-in-unavailable): the
        # cookie authenticates nobody.
        if status == 401 or (session and status in (404, 409)):
            raise Unauthorized(
                "Keeper does not accept this credential: it is unknown, revoked or expired"
            )
        if status == 429:
            raise CallerRateLimited(
                "Keeper's rate limit for this caller is reached: try again later",
                retry_after_s=_retry_after(response),
            )
        if status != 200:
            raise KeeperUnavailable(
                f"Keeper at {self._where} answered {status} to a credential check"
            )
        try:
            document = response.json()
        except ValueError:
            document = None
        if not isinstance(document, dict):
            raise KeeperUnavailable(f"Keeper at {self._where} answered a check without JSON")
        return document


def _retry_after(response: httpx.Response) -> int:
    value = response.headers.get("retry-after", "")
    return int(value) if value.isdigit() else 1
