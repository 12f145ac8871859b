"""The web app's files at `/`, when `keeper.web.dist` names its build (docs/auth.md).

`WebFiles` is the router's default: it answers only paths no route matched, so every API route,
its 405s included, stays as it is. A GET or HEAD of a file of the build answers that file (with
Starlette's ETag and 304); any other path answers index.html, so the app's client-side routes
(`/proposals/42`) work when reloaded. Paths of the API, the docs and health (`RESERVED`), and other
methods, answer the usual 404 problem. Lookups stay inside the build: Starlette's `StaticFiles`
resolves a path and refuses one whose real path leaves the directory (`../`, encoded or not, and
symbolic links pointing out).

`GET /web-config.json` is the app's runtime configuration (`web_config`): Keeper's URL (its own
origin), where Guide answers (`keeper.web.guide_url`), how to sign in (a session or a token; with
API keys, with the OIDC issuer's code flow, which makes a session) and whether Explore plays
scripted explorations, so one build works against any Keeper (docs/web.md).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from starlette.responses import FileResponse, JSONResponse
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from lorebase_core.errors import UnsafeSettings
from lorebase_keeper.middleware.browser_headers import WEB_CSP
from lorebase_platform.settings import Settings

RESERVED = (
    "/api",
    "/docs",
    "/redoc",
    "/openapi.json",
    "/static-offline-docs",
    "/healthz",
    "/readyz",
)
"""Prefixes (a whole segment) that never answer the web app."""
CONFIG_PATH = "/web-config.json"


def web_config(settings: Settings) -> dict[str, object]:
    """The web app's runtime configuration under `settings` (module docstring)."""
    auth = settings.keeper.auth
    web = settings.keeper.web
    if auth.mode == "none":
        sign_in = "none"
    elif web.sign_in == "session" and auth.sessions.enabled:
        sign_in = "session"
    else:
        sign_in = "token"
    return {
        "keeperUrl": "",
        "guideUrl": web.guide_url,
        "authMode": sign_in,
        "apiKeys": auth.mode in ("api_key", "api_key+oidc"),
        "oidc": sign_in == "session" and auth.mode in ("oidc", "api_key+oidc"),
        "mock": web.mock,
    }


def web_csp(settings: Settings) -> str:
    """WEB_CSP, with Guide's origin in connect-src when keeper.web.guide_url names one."""
    guide = settings.keeper.web.guide_url
    if not guide or guide.startswith("/"):
        return WEB_CSP
    parts = urlsplit(guide)
    return WEB_CSP.replace(
        "connect-src 'self'", f"connect-src 'self' {parts.scheme}://{parts.netloc}"
    )


def check_dist(dist: Path) -> Path:
    """`dist` resolved, once it is known to be a directory with an index.html.

    Raises:
        UnsafeSettings: it is not a directory, or has no index.html.
    """
    folder = dist.expanduser()
    if not folder.is_dir():
        raise UnsafeSettings(
            f"keeper.web.dist {str(dist)!r} is not a directory: build the web app (its dist "
            "directory) and name it, or set keeper.web.dist to null to serve no web app"
        )
    if not (folder / "index.html").is_file():
        raise UnsafeSettings(
            f"keeper.web.dist {str(dist)!r} has no index.html: name the directory the web app's "
            "build wrote (the one holding index.html and assets/)"
        )
    return folder.resolve()


def reserved(path: str) -> bool:
    return any(path == prefix or path.startswith(prefix + "/") for prefix in RESERVED)


class WebFiles:
    """The router's default with a web app: its files, else index.html (module docstring)."""

    def __init__(self, dist: Path, settings: Settings, not_found: ASGIApp) -> None:
        self.folder = check_dist(dist)
        self.files = StaticFiles(directory=self.folder)
        self.not_found = not_found
        self.config = web_config(settings)
        self.csp = web_csp(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD") or reserved(path):
            await self.not_found(scope, receive, send)
            return
        if path == CONFIG_PATH:
            answer = JSONResponse(self.config, headers={"Cache-Control": "no-cache"})
            await answer(scope, receive, send)
            return
        relative = path.lstrip("/")
        full_path, stat = self.files.lookup_path(relative) if relative else ("", None)
        if stat is None or not Path(full_path).is_file():
            full_path = str(self.folder / "index.html")
            stat = None
        response = self.files.file_response(
            full_path, stat or Path(full_path).stat(), scope, status_code=200
        )
        response.headers["Content-Security-Policy"] = self.csp
        if isinstance(response, FileResponse) and full_path.endswith("index.html"):
            response.headers["Cache-Control"] = "no-cache"  # a new build is picked up at once
        await response(scope, receive, send)
