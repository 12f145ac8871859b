"""keeper.auth: who a request comes from and what it may read (docs/auth.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from lorebase_platform.settings.base import Section, count, flag, seconds, secret_reference, section


class AuthzSettings(Section):
    invisible_kinds: bool = flag(
        True,
        "A request naming a Kind outside the caller's grant answers like an unknown "
        "Kind (404); false answers 403 kind-forbidden instead.",
    )
    grants_cache_ttl_s: float = Field(
        default=5.0,
        ge=0,
        description="Seconds a process keeps a credential's principal and grants before reading "
        "them again (a revoked key or withdrawn grant takes effect within it).",
    )


class ReadAuditSettings(Section):
    """keeper.auth.audit: the read audit, who read what, for compliance (docs/trace.md)."""

    reads: bool = flag(
        False,
        "Record every read of a Domain (principal, route, Domain, branch, Revision, "
        "refs, status, time), written off the request path like the agent trace.",
    )
    retention_days: int = count(365, "Read audit entries older than this are deleted.")
    max_refs: int = count(500, "Records and Links kept per read audit entry.", ge=0)


AuthMode = Literal["none", "api_key", "oidc", "api_key+oidc"]
"""keeper.auth.mode: who a request comes from (docs/auth.md, "Modes")."""


class SessionSettings(Section):
    """keeper.auth.sessions: browser sessions made by POST /api/v1/auth/session (docs/auth.md)."""

    enabled: bool = flag(True, "Whether POST /api/v1/auth/session makes browser sessions.")
    cookie_name: str = Field(
        default="lorebase_session",
        pattern=r"^[A-Za-z0-9_-]{1,64}$",
        description="Name of the session cookie (__Host-<name> with cookie_secure).",
    )
    cookie_secure: bool = flag(
        False,
        "Mark the cookie Secure and name it __Host-<cookie_name>: on for every "
        "deployment served over HTTPS; off only for http://127.0.0.1.",
    )
    idle_timeout_s: int = Field(
        default=28_800,
        ge=60,
        description="A session unused for this long ends (8 hours).",
    )
    absolute_timeout_s: int = Field(
        default=604_800,
        ge=60,
        description="A session ends this long after sign-in, however much it is used (7 days).",
    )
    touch_interval_s: int = Field(
        default=60,
        ge=1,
        description="How often a session's last use is written (at most once per interval).",
    )
    max_per_principal: int = count(
        50, "Live sessions one principal may hold; signing in past it ends the oldest."
    )


class OidcGrantSettings(Section):
    """A grant given to members of a group of the OIDC groups claim (keeper.auth.oidc.groups)."""

    domain: str = Field(description="Domain (or glob) of the grant.")
    branch: str = Field(default="*", description="Branch glob of the grant.")
    role: Literal["viewer", "editor", "reviewer", "admin"] = Field(
        description="Role the grant gives."
    )
    kinds: list[str] | None = Field(
        default=None, description="Kinds the grant is narrowed to (null: every Kind)."
    )
    clearances: list[str] = Field(
        default_factory=list, description="Sensitivity tags the grant may read."
    )


OIDC_ALGORITHMS = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)
"""Signature algorithms keeper.auth.oidc.algorithms may name (no none, no HMAC)."""


class OidcSettings(Section):
    """keeper.auth.oidc: sign-in and bearer tokens from an OpenID Connect issuer (docs/auth.md)."""

    issuer: str | None = Field(
        default=None,
        description="Issuer URL; its /.well-known/openid-configuration is read. https, or http "
        "on a loopback address only.",
    )
    audience: list[str] = Field(
        default_factory=list,
        description="Accepted aud values of bearer tokens (empty: the client_id).",
    )
    client_id: str | None = Field(
        default=None, description="Keeper's client id at the issuer (sign-in and the CLI)."
    )
    client_secret: str | None = secret_reference(
        "Client secret as a secret:// reference; empty for a public client (PKCE)."
    )
    redirect_uris: list[str] = Field(
        default_factory=list,
        description="Redirect URIs a sign-in may name (the web app's callback).",
    )
    scopes: list[str] = Field(
        default_factory=lambda: ["openid", "profile", "email"],
        description="Scopes asked for at sign-in.",
    )
    principal_claim: str = Field(
        default="sub",
        min_length=1,
        description="Claim whose value names the principal (lower-cased; characters outside "
        "a-z 0-9 _ . - become -).",
    )
    principal_type: Literal["user", "service"] = Field(
        default="user", description="Type of a principal created at first sign-in."
    )
    groups_claim: str | None = Field(
        default=None, description="Claim holding the caller's groups (null: no group grants)."
    )
    groups: dict[str, list[OidcGrantSettings]] = Field(
        default_factory=dict,
        description="Grants given to each group of groups_claim, on top of stored grants.",
    )
    algorithms: list[str] = Field(
        default_factory=lambda: ["RS256", "PS256", "ES256", "EdDSA"],
        min_length=1,
        description="Signature algorithms accepted: asymmetric ones only (RS256, RS384, "
        "RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA); none and HMAC never.",
    )
    leeway_s: int = Field(
        default=30, ge=0, le=300, description="Clock skew allowed on exp, nbf and iat."
    )

    @field_validator("algorithms")
    @classmethod
    def _asymmetric_algorithms(cls, value: list[str]) -> list[str]:
        refused = [name for name in value if name not in OIDC_ALGORITHMS]
        if refused:
            raise ValueError(
                f"{', '.join(refused)} cannot verify OIDC tokens: name asymmetric algorithms "
                f"only ({', '.join(OIDC_ALGORITHMS)}); none and HMAC (HS256...) are never "
                "accepted, since an HMAC key would be the issuer's public key"
            )
        return value

    jwks_cache_s: int = Field(
        default=300,
        ge=0,
        description="Seconds the discovery document and signing keys are kept; an unknown key "
        "id reads them again at once (at most every 10 s).",
    )
    timeout_s: float = seconds(5.0, "Timeout of requests to the issuer.", le=60)


class AuthSettings(Section):
    mode: AuthMode = Field(
        default="api_key",
        description="none: every request is a local administrator (a quick look on loopback); "
        "api_key: requests carry an API key (Authorization: Bearer or X-API-Key) or a browser "
        "session made with one; oidc: bearer tokens of keeper.auth.oidc's issuer or a session "
        "made by signing in there; api_key+oidc: both.",
    )
    allow_none_off_loopback: bool = flag(
        False,
        "Let auth mode none listen on an address other than 127.0.0.1, ::1 or "
        "localhost, where anyone who reaches it is an administrator with every clearance. "
        "Off: Keeper refuses to start that way.",
    )
    authz: AuthzSettings = section(AuthzSettings, "Authorization.")
    sessions: SessionSettings = section(SessionSettings, "Browser sessions.")
    oidc: OidcSettings = section(OidcSettings, "OpenID Connect.")
    audit: ReadAuditSettings = section(ReadAuditSettings, "The read audit.")
