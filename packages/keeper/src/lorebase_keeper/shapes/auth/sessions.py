"""Browser sessions: what POST and GET /auth/session answer, and what POST takes."""

from __future__ import annotations

from typing import TypedDict

from pydantic import BaseModel, ConfigDict, Field, RootModel

from lorebase_keeper.shapes.common import Shape


class SessionAnswer(Shape):
    principal: str
    type: str = Field(description="user or service.")
    method: str = Field(description="How the session signed in: api_key or oidc.")
    created_at: str
    expires_at: str = Field(description="Its absolute end (keeper.auth.sessions).")
    idle_expires_at: str = Field(description="When it ends unless used before.")
    csrf_token: str = Field(
        description="Send it as X-CSRF-Token with every unsafe request carrying the cookie."
    )


class SessionAnswerJson(TypedDict):
    principal: str
    type: str
    method: str
    created_at: str
    expires_at: str
    idle_expires_at: str
    csrf_token: str


class ApiKeySignIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    api_key: str = Field(description="An API key (lbk_...): auth modes api_key, api_key+oidc.")


class CodeSignIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(description="The authorization code the issuer sent to redirect_uri.")
    code_verifier: str = Field(description="The PKCE verifier of the code challenge sent.")
    redirect_uri: str = Field(description="The redirect URI the code was sent to.")
    nonce: str | None = Field(default=None, description="The nonce sent, checked in the ID token.")


class SessionRequest(RootModel[ApiKeySignIn | CodeSignIn]):
    """Exactly one way of signing in: an API key, or the code of an OIDC sign-in (PKCE)."""
