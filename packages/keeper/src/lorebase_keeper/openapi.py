"""The published OpenAPI document: FastAPI's, plus how callers authenticate.

With API keys (`keeper.auth.mode: api_key`) every operation requires one, as a Bearer token or
the `X-API-Key` header (docs/auth.md), except the probes, which declare `security: []`. With
`none` the document declares no requirement, which is what that mode does.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from lorebase_platform.settings import Settings

SECURITY_SCHEMES: dict[str, Any] = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "An API key (`lbk_...`) as a Bearer token: `Authorization: Bearer <key>`.",
    },
    "apiKey": {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": "The same API key in the X-API-Key header.",
    },
}
OPEN_PATHS = ("/healthz", "/readyz")
"""Answered without credentials: the liveness and readiness probes."""


def openapi_document(app: FastAPI, settings: Settings) -> dict[str, Any]:
    """FastAPI's document of `app` with the security requirements of the auth mode."""
    document = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
    )
    if settings.keeper.auth.mode == "none":
        return document
    document.setdefault("components", {})["securitySchemes"] = SECURITY_SCHEMES
    document["security"] = [{name: []} for name in SECURITY_SCHEMES]
    for path in OPEN_PATHS:
        for operation in document["paths"].get(path, {}).values():
            operation["security"] = []
    return document


def install_openapi(app: FastAPI, settings: Settings) -> None:
    """Serve `openapi_document` at /openapi.json (built once, on the first request)."""

    def cached() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = openapi_document(app, settings)
        return app.openapi_schema

    app.openapi = cached  # type: ignore[method-assign]
