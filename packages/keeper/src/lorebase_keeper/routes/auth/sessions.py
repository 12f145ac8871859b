"""Browser sessions: POST, GET and DELETE /api/v1/auth/session (docs/auth.md).

POST signs in, with an API key or the code of an OIDC sign-in, and sets the session cookie; GET
answers the session and its CSRF token; DELETE signs out. Every auth mode but `none` takes
sessions, while keeper.auth.sessions.enabled. Sign-in has no session to take a CSRF token from,
so it refuses what a page of another site could send: a body that is not JSON (a form posts
text/plain, urlencoded or multipart without asking) and an Origin that is neither Keeper's own
nor in keeper.http.allowed_origins. It always makes a new session id, and revokes the one the
request carried (no session fixation).
"""

from __future__ import annotations

import json
from email.message import Message

from fastapi import Request, Response
from starlette.concurrency import run_in_threadpool

from lorebase_core.errors import (
    CsrfRejected,
    InvalidInput,
    Issue,
    MalformedJson,
    SignInUnavailable,
    Unauthorized,
)
from lorebase_core.sessions import csrf_token
from lorebase_keeper.http.documented import WRITE_RESPONSES, answer, request_body
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.http.session_cookie import clear_cookie, cookie_name, set_cookie
from lorebase_keeper.reads.answers import plain
from lorebase_keeper.reads.reading import Keeper, keeper_of
from lorebase_keeper.shapes.auth.sessions import SessionAnswer, SessionAnswerJson, SessionRequest
from lorebase_store import NewSession, SessionInfo, api_key_id

router = segment_router("/api/v1/auth", "auth", WRITE_RESPONSES)

CODE_MEMBERS = ("code", "code_verifier", "redirect_uri")
SIGN_IN_MEMBERS = frozenset({"api_key", *CODE_MEMBERS, "nonce"})


def _sessions_available(keeper: Keeper) -> None:
    if keeper.settings.keeper.auth.mode == "none":
        raise SignInUnavailable(
            "This Keeper runs in auth mode 'none': every request is the local administrator, "
            "there is nobody to sign in as. Set keeper.auth.mode to api_key or oidc for sessions"
        )
    if not keeper.settings.keeper.auth.sessions.enabled:
        raise SignInUnavailable(
            "Browser sessions are off on this Keeper (keeper.auth.sessions.enabled: false): "
            "send an API key or token with each request instead"
        )


def _session_json(session_id: str, info: SessionInfo) -> SessionAnswerJson:
    return {
        "principal": info.principal,
        "type": info.principal_type,
        "method": info.method,
        "created_at": info.created_at,
        "expires_at": info.expires_at,
        "idle_expires_at": info.idle_expires_at,
        "csrf_token": csrf_token(session_id),
    }


def _require_same_site(request: Request, keeper: Keeper) -> None:
    """Login CSRF: a JSON body, and no Origin but Keeper's own or an allowed one."""
    origin = request.headers.get("origin")
    if origin is not None:
        own = f"{request.url.scheme}://{request.url.netloc}".lower()
        allowed = {
            entry.rstrip("/").lower() for entry in keeper.settings.keeper.http.allowed_origins
        }
        if origin.rstrip("/").lower() not in allowed | {own}:
            raise CsrfRejected(
                "Sign-in from this page's origin is refused: it is neither Keeper's own origin "
                "nor in keeper.http.allowed_origins (add the web app's origin there)"
            )
    message = Message()
    message["content-type"] = request.headers.get("content-type", "")
    if message.get_content_type() != "application/json":
        raise CsrfRejected("Sign-in takes a JSON body: send it with Content-Type: application/json")


def _sign_in_body(raw: bytes) -> dict[str, str]:
    try:
        document = json.loads(raw)
    except ValueError:
        raise MalformedJson("The request body is not valid JSON") from None
    if not isinstance(document, dict):
        raise InvalidInput(
            "The sign-in body must be a JSON object", [Issue("", "expected an object", "type")]
        )
    issues = [
        Issue(
            name,
            "not a member of a sign-in: use api_key, or code, code_verifier, "
            "redirect_uri and nonce",
            "unknown",
        )
        for name in sorted(set(document) - SIGN_IN_MEMBERS)
    ]
    issues += [
        Issue(name, "expected a non-empty string", "type")
        for name, value in sorted(document.items())
        if name in SIGN_IN_MEMBERS
        and not (isinstance(value, str) and value.strip())
        and not (name == "nonce" and value is None)
    ]
    has_key = "api_key" in document
    code_members = [name for name in (*CODE_MEMBERS, "nonce") if name in document]
    if has_key and code_members:
        issues.append(
            Issue(
                "",
                "give exactly one of api_key, or the code members of an OIDC sign-in",
                "exclusive",
            )
        )
    elif not has_key:
        issues += [
            Issue(name, "required (or sign in with api_key instead)", "missing")
            for name in CODE_MEMBERS
            if name not in document
        ]
    if issues:
        raise InvalidInput("The sign-in body is not valid", issues)
    return {name: value for name, value in document.items() if isinstance(value, str)}


def _make_session(keeper: Keeper, body: dict[str, str]) -> NewSession:
    authenticator = keeper.authenticator
    sessions = keeper.settings.keeper.auth.sessions
    mode = keeper.settings.keeper.auth.mode
    if "api_key" in body:
        if not authenticator.takes_api_keys:
            raise SignInUnavailable(
                f"Auth mode {mode!r} takes no API keys: sign in with the code of an OIDC sign-in"
            )
        found = keeper.store.key_principal(body["api_key"])
        if found is None:
            raise Unauthorized("The API key is not valid: it is malformed, unknown or revoked")
        return keeper.store.create_session(
            found.id, method="api_key", key_id=api_key_id(body["api_key"]), settings=sessions
        )
    if not authenticator.takes_oidc:
        raise SignInUnavailable(
            f"Auth mode {mode!r} takes no OIDC sign-in: sign in with an API key (api_key)"
        )
    signed_in = authenticator.oidc_sign_in(
        code=body["code"],
        code_verifier=body["code_verifier"],
        redirect_uri=body["redirect_uri"],
        nonce=body.get("nonce"),
    )
    return keeper.store.create_session(
        signed_in.principal_id, method="oidc", claims=signed_in.claims, settings=sessions
    )


def _end_presented(keeper: Keeper, request: Request) -> None:
    """Revoke the session the request's cookie names, if any (whatever its shape)."""
    presented = request.cookies.get(cookie_name(keeper.settings.keeper.auth.sessions))
    if presented and keeper.store.revoke_session(presented):
        keeper.authenticator.forget_session(presented)


@router.post(
    "/session",
    status_code=201,
    summary="Sign in: a session cookie for an API key or an OIDC sign-in's code",
    responses=answer(SessionAnswer, 201, "The session; Set-Cookie holds its cookie."),
    openapi_extra={**request_body(SessionRequest), "security": []},
)
async def sign_in(request: Request) -> Response:
    keeper = keeper_of(request)
    _sessions_available(keeper)
    _require_same_site(request, keeper)
    body = _sign_in_body(await request.body())

    def work() -> NewSession:
        made = _make_session(keeper, body)
        _end_presented(keeper, request)
        return made

    made = await run_in_threadpool(work)
    response = plain(_session_json(made.session_id, made.info), status=201)
    response.headers["Set-Cookie"] = set_cookie(
        keeper.settings.keeper.auth.sessions, made.session_id
    )
    return response


@router.get(
    "/session",
    summary="The session of the cookie: principal, expiry and CSRF token",
    responses=answer(SessionAnswer),
)
def session(request: Request) -> Response:
    keeper = keeper_of(request)
    _sessions_available(keeper)
    session_id, info = keeper.authenticator.current_session(request)
    return plain(_session_json(session_id, info))


@router.delete(
    "/session",
    status_code=204,
    summary="Sign out: end the session of the cookie and clear it",
    responses={204: {"description": "Signed out; Set-Cookie clears the cookie."}},
    # open like signing in: the cookie it ends is all it takes, and an ended one is cleared too
    openapi_extra={"security": []},
)
def sign_out(request: Request) -> Response:
    keeper = keeper_of(request)
    _sessions_available(keeper)
    sessions = keeper.settings.keeper.auth.sessions
    if request.cookies.get(cookie_name(sessions)) is None:
        raise Unauthorized(
            "This request carries no session cookie: there is no session to sign out of"
        )
    _end_presented(keeper, request)
    return Response(
        status_code=204,
        headers={"Cache-Control": "no-store", "Set-Cookie": clear_cookie(sessions)},
    )
