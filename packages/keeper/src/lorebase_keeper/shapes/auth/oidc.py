"""How the web app and the CLI sign in with OIDC: GET /api/v1/auth/oidc."""

from __future__ import annotations

from typing import TypedDict

from pydantic import Field

from lorebase_core.values import JsonValue
from lorebase_keeper.shapes.common import Shape


class OidcConfiguration(Shape):
    issuer: str
    client_id: str = Field(description="Keeper's client id at the issuer (public; PKCE).")
    authorization_endpoint: str | None
    token_endpoint: str | None
    device_authorization_endpoint: str | None = Field(
        description="null: the issuer has no device flow (the CLI then uses the browser flow)."
    )
    scopes: list[str]
    redirect_uris: list[str] = Field(description="Redirect URIs a sign-in may name.")
    audience: list[str] = Field(description="aud values Keeper accepts in bearer tokens.")


class OidcConfigurationJson(TypedDict):
    issuer: str
    client_id: str | None
    # as the issuer's discovery document gives them
    authorization_endpoint: JsonValue
    token_endpoint: JsonValue
    device_authorization_endpoint: JsonValue
    scopes: list[str]
    redirect_uris: list[str]
    audience: list[str]
