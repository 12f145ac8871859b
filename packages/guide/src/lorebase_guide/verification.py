"""Who is calling, asked of Keeper before any limit or model call (docs/guide.md,
"Authentication").

`Verifier.verify` sends GET /api/v1/auth/whoami (`AsyncLorebaseClient.whoami`) with exactly the
caller's forwarded headers; for a session cookie it first reads GET /api/v1/auth/session
(`browser_session`) with the cookie and compares the session's csrf_token with the caller's
X-CSRF-Token (403 csrf unless they match). At most guide.limits.max_concurrent_verifications
checks run at once; past that, 429 busy. Keeper's answers map to Guide's refusals: 401 (and a session Keeper cannot find) -> 401 unauthorized,
429 -> 429 rate with Keeper's Retry-After, anything else or no answer -> 502
keeper_unavailable. Nothing here logs a credential or a value.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable, Mapping

import httpx

from lorebase_client import Answer, AsyncLorebaseClient, response_of
from lorebase_core.errors import (
    CallerRateLimited,
    CsrfRejected,
    GuideBusy,
    KeeperUnavailable,
    LorebaseError,
    Unauthorized,
)
from lorebase_guide.credentials import Presented
from lorebase_guide.keeper_access import CallerTransport
from lorebase_platform.settings import GuideKeeperSettings

logger = logging.getLogger("lorebase_guide.verification")

Check = Callable[[AsyncLorebaseClient], Awaitable[Answer]]
"""One client call of a check (`whoami`, `browser_session`)."""


class Verifier:
    """Credential checks and the readiness probe against one Keeper."""

    def __init__(
        self,
        settings: GuideKeeperSettings,
        max_concurrent: int,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings
        self.base_url = settings.base_url.rstrip("/")
        self.max_concurrent = max_concurrent
        self.in_flight = 0
        # trust_env off: no proxy or certificate setting of the environment applies. Each check
        # is a client whose transport sends the caller's headers only (`CallerTransport`), over
        # this one shared transport.
        self._transport = transport or httpx.AsyncHTTPTransport(trust_env=False)
        url = httpx.URL(self.base_url)
        self._where = f"{url.host}:{url.port}" if url.port else str(url.host)

    async def aclose(self) -> None:
        await self._transport.aclose()

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
            answer = await self._get(AsyncLorebaseClient.whoami, credential.headers)
        finally:
            self.in_flight -= 1
        principal = answer.get("principal")
        if not isinstance(principal, str) or not principal:
            raise KeeperUnavailable(f"Keeper at {self._where} answered whoami without a principal")
        return principal

    async def ready(self) -> bool:
        """Whether Keeper answers GET /healthz with 200 (no credential sent)."""
        async with self._client({}) as client:
            try:
                answer = await client.healthz()
            except (httpx.HTTPError, LorebaseError):
                return False
        return answer.status_code == 200

    def _client(self, headers: Mapping[str, str]) -> AsyncLorebaseClient:
        return AsyncLorebaseClient(
            self.base_url,
            transport=CallerTransport(self._transport, headers, owns_inner=False),
            timeout=self.settings.timeout_s,
        )

    async def _check_csrf(self, credential: Presented) -> None:
        session = await self._get(
            AsyncLorebaseClient.browser_session, credential.headers, session=True
        )
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
        self, check: Check, headers: Mapping[str, str], *, session: bool = False
    ) -> Answer:
        async with self._client(headers) as client:
            try:
                answer = await check(client)
            except httpx.HTTPError as error:
                logger.warning("Keeper did not answer a credential check: %s", type(error).__name__)
                raise KeeperUnavailable(
                    f"Keeper at {self._where} did not answer ({type(error).__name__}): check "
                    "guide.keeper.base_url and that Keeper runs"
                ) from None
            except LorebaseError as error:
                raise self._refusal(error, session=session) from None
        if answer.status_code != 200:
            raise KeeperUnavailable(
                f"Keeper at {self._where} answered {answer.status_code} to a credential check"
            )
        return answer

    def _refusal(self, error: LorebaseError, *, session: bool) -> LorebaseError:
        """Guide's refusal for Keeper's refusal of a check."""
        response = response_of(error)
        if response is None:  # a success answer that is not a JSON object
            return KeeperUnavailable(f"Keeper at {self._where} answered a check without JSON")
        status = response.status_code
        # A session Keeper does not know, or sessions off (409 sign-in-unavailable): the
        # cookie authenticates nobody.
        if status == 401 or (session and status in (404, 409)):
            return Unauthorized(
                "Keeper does not accept this credential: it is unknown, revoked or expired"
            )
        if status == 429:
            return CallerRateLimited(
                "Keeper's rate limit for this caller is reached: try again later",
                retry_after_s=_retry_after(response),
            )
        return KeeperUnavailable(f"Keeper at {self._where} answered {status} to a credential check")


def _retry_after(response: httpx.Response) -> int:
    value = response.headers.get("retry-after", "")
    return int(value) if value.isdigit() else 1
