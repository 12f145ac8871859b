"""The published OpenAPI document: FastAPI's, typed, plus how callers authenticate.

Every answer is typed: routes declare the models of `lorebase_keeper.shapes` in their
decorators (`routes.documented`), request bodies a route parses itself included; every status a
route does not list is a problem document (`default`). `/docs` serves Swagger UI from the
installed `fastapi-offline` package, so it works offline.

With API keys (`keeper.auth.mode: api_key`) every operation requires one, as a Bearer token or
the `X-API-Key` header (docs/auth.md), or a browser session cookie, except the probes, signing
in and out and GET /api/v1/auth/oidc, which declare `security: []`. The OIDC modes declare the issuer
as an `openIdConnect` scheme (its bearer tokens; `api_key+oidc` also the key schemes). With
`none` the document declares no requirement, which is what that mode does.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic.json_schema import models_json_schema

from lorebase_core.values import JsonValue
from lorebase_keeper.http.documented import DOCUMENTED_MODELS, PROBLEM_REF
from lorebase_keeper.http.session_cookie import cookie_name
from lorebase_keeper.shapes.common import JsonObject
from lorebase_platform.settings import Settings

SECURITY_SCHEMES: dict[str, JsonObject] = {
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
OPEN_PATHS = ("/healthz", "/readyz", "/api/v1/auth/oidc")
"""Answered without credentials: the liveness and readiness probes, how to sign in."""


def security_schemes(settings: Settings) -> dict[str, JsonObject]:
    """The security schemes of the auth mode (none for mode `none`)."""
    auth = settings.keeper.auth
    found: dict[str, JsonObject] = {}
    if auth.mode in ("api_key", "api_key+oidc"):
        found.update(SECURITY_SCHEMES)
    if auth.mode in ("oidc", "api_key+oidc") and auth.oidc.issuer:
        found["oidc"] = {
            "type": "openIdConnect",
            "openIdConnectUrl": f"{auth.oidc.issuer.rstrip('/')}/.well-known/openid-configuration",
            "description": "A JWT access token of the issuer as a Bearer token "
            "(`lorebase login`), or a browser session made by signing in there.",
        }
    sessions = auth.sessions
    if found and sessions.enabled:
        found["session"] = {
            "type": "apiKey",
            "in": "cookie",
            "name": cookie_name(sessions),
            "description": "A browser session (POST /api/v1/auth/session); unsafe methods also "
            "need its X-CSRF-Token.",
        }
    return found


def openapi_document(app: FastAPI, settings: Settings) -> JsonObject:
    """FastAPI's document of `app` with the security requirements of the auth mode."""
    document: JsonObject = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
    )
    _add_documented_models(document)
    for operations in _object(document["paths"]).values():
        for operation in _object(operations).values():
            _typed_responses(_object(operation))
    schemes = security_schemes(settings)
    if not schemes:
        return document
    _object(document.setdefault("components", {}))["securitySchemes"] = dict(schemes)
    document["security"] = [{name: []} for name in schemes]
    for path in OPEN_PATHS:
        for operation in _object(_object(document["paths"]).get(path, {})).values():
            _object(operation)["security"] = []
    return document


def install_openapi(app: FastAPI, settings: Settings) -> None:
    """Serve `openapi_document` at /openapi.json (built once, on the first request)."""

    def cached() -> JsonObject:
        if app.openapi_schema is None:
            app.openapi_schema = openapi_document(app, settings)
        return app.openapi_schema

    app.openapi = cached  # type: ignore[method-assign]


def _object(member: JsonValue) -> JsonObject:
    """A member of the document that is an object (in FastAPI's document, these always are)."""
    if not isinstance(member, dict):
        raise TypeError(f"expected an object in the OpenAPI document, not {type(member)}")
    return member


def _add_documented_models(document: JsonObject) -> None:
    """The problem document and the request bodies routes parse themselves, as components."""
    _, found = models_json_schema(
        [(model, "validation") for model in DOCUMENTED_MODELS],
        ref_template="#/components/schemas/{model}",
    )
    components = _object(document.setdefault("components", {}))
    schemas = _object(components.setdefault("schemas", {}))
    for name, schema in found.get("$defs", {}).items():
        if _members(_object(schemas.setdefault(name, schema))) != _members(schema):
            # two models of one name: a $ref would name the other one
            raise ValueError(f"two shapes are called {name!r}: rename one")
    components["schemas"] = dict(sorted(schemas.items()))


def _members(schema: JsonObject) -> tuple[object, ...]:
    """What tells two models apart (FastAPI's output schemas leave defaults out)."""
    properties = schema.get("properties", {})
    names = sorted(properties) if isinstance(properties, dict) else []
    return (schema.get("description"), names, schema.get("enum"))


def _typed_responses(operation: JsonObject) -> None:
    """Problem documents only as application/problem+json, and any other status one too."""
    responses = _object(operation["responses"])
    for status, response in list(responses.items()):
        content = _object(_object(response).get("content", {}))
        if status[0] in "45" and content.get("application/json") == {"schema": {}}:
            del content["application/json"]
    responses.setdefault(
        "default",
        {
            "description": "Any other status: a problem document.",
            "content": {"application/problem+json": {"schema": PROBLEM_REF}},
        },
    )
