"""Who the caller is and what it may read: grants, keys, sessions, OIDC, rate limits."""

from __future__ import annotations

from lorebase_core.errors.base import Conflict, Forbidden, LorebaseError, NotFound, TooManyRequests


class KindForbidden(Forbidden):
    """A Kind outside the caller's grant, when keeper.auth.authz.invisible_kinds is off."""

    code = "kind-forbidden"
    title = "Kind not readable"


class MergeOutsideScope(Forbidden):
    """A merge would write Records or Links of Kinds the caller's grants on the target skip."""

    code = "merge-outside-scope"
    title = "The merge reaches beyond your grants"


class HistoryForbidden(Forbidden):
    """History reads need a grant that is not narrowed to Kinds."""

    code = "history-forbidden"
    title = "History not readable"


class AttributeForbidden(Forbidden):
    """A filter, order or group on an Attribute whose values the caller may not read."""

    code = "attribute-forbidden"
    title = "Attribute not readable"


class PrincipalNotFound(NotFound):
    code = "principal-not-found"
    title = "Unknown principal"


class KeyNotFound(NotFound):
    code = "key-not-found"
    title = "Unknown API key"


class GrantNotFound(NotFound):
    code = "grant-not-found"
    title = "Unknown grant"


class CsrfRejected(Forbidden):
    """An unsafe request authenticated by a session cookie without the session's X-CSRF-Token.

    The token is in GET /api/v1/auth/session (`csrf_token`); send it as `X-CSRF-Token`.
    """

    code = "csrf"
    title = "CSRF token missing or wrong"


class RateLimited(TooManyRequests):
    """More requests of one class (reads, writes, search, context) than keeper.rate_limits allow."""

    code = "rate-limited"
    title = "Rate limit reached"


class QuotaExceeded(TooManyRequests):
    """A principal's daily quota of one class (keeper.rate_limits ... per_day) is used up."""

    code = "quota-exceeded"
    title = "Daily quota used up"


class IdentityProviderUnavailable(LorebaseError):
    """The OIDC issuer's discovery document, signing keys or token endpoint could not be read.

    The detail names the issuer and what happened, never a token, code or client secret.
    """

    status = 502
    code = "identity-provider-unavailable"
    title = "Identity provider unavailable"


class SignInUnavailable(Conflict):
    """A sign-in this Keeper is not set up for: sessions off, or OIDC without keeper.auth.oidc."""

    code = "sign-in-unavailable"
    title = "Sign-in not available"
