"""Helpers for tests that meet Keeper, in every package's tests: a Keeper app under uvicorn on
loopback (`serve_in_thread`), a Keeper with an imported Domain and the demo's principals
(`demo_keeper`), the principals and API keys of Keeper's own tests (`make_keys`), a caller's key
(`grant_key`), the one check of an error answer (`assert_problem`), a trace session once Keeper
wrote its steps (`wait_for_session`), and a real OpenID Connect provider on loopback
(`OidcProvider`, tests/oidc/provider.mjs)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from html.parser import HTMLParser
from pathlib import Path
from typing import Literal, TypedDict, Unpack
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.types import ASGIApp

from lorebase_keeper.shapes.common import JsonObject
from lorebase_platform.settings import Settings
from lorebase_store import PrincipalType, Store, TraceSession, import_directory

__all__ = [
    "OIDC_AUDIENCE",
    "OIDC_REDIRECT_URI",
    "CodeFlowOptions",
    "DemoKeeper",
    "Grant",
    "Keys",
    "OidcProvider",
    "ServerOptions",
    "assert_problem",
    "demo_keeper",
    "free_port",
    "grant_key",
    "make_keys",
    "serve_in_thread",
    "wait_for_session",
]


class ServerOptions(TypedDict, total=False):
    """The uvicorn settings `serve_in_thread` passes on (add one here when a caller needs it)."""

    access_log: bool
    lifespan: Literal["auto", "on", "off"]
    timeout_keep_alive: int


@contextmanager
def serve_in_thread(
    app: ASGIApp,
    *,
    name: str = "keeper",
    runner: Callable[[Callable[[], None]], object] | None = None,
    **config: Unpack[ServerOptions],
) -> Iterator[str]:
    """Run `app` under uvicorn on 127.0.0.1, on a port the system picks; yields its URL.

    `config` adds uvicorn settings (`timeout_keep_alive=120`, say); `runner` calls the server's
    loop for the thread (`profiler.runcall` profiles it).
    """
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", **config)
    )
    target = server.run if runner is None else partial(runner, server.run)
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError(f"{name} stopped before it started listening")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name} did not start listening within 30 s")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@dataclass(frozen=True)
class Keys:
    """The API keys of the principals `make_keys` gives the supply Domain."""

    admin: str
    viewer: str
    supplier: str
    agent: str

    @staticmethod
    def header(key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"}


class Grant(TypedDict, total=False):
    """A grant as `Store.add_grant` takes it (domain and role, when any is given)."""

    domain: str
    role: str
    branch: str
    kinds: list[str] | None
    clearances: list[str] | None


def grant_key(
    store: Store, principal: str, *, kind: PrincipalType = "user", **grant: Unpack[Grant]
) -> str:
    """A new API key of `principal` (made when missing, a user or a service), which first gets
    the grant `grant` names, when it names one (`Store.add_grant`: domain, role, branch, kinds,
    clearances). A second grant is `store.add_grant`'s."""
    store.ensure_principal(principal, principal_type=kind)
    if grant:
        store.add_grant(principal, **grant)
    return store.create_key(principal).secret


def make_keys(store: Store) -> Keys:
    """Principals with an API key each, on a store holding the supply example: `usr_admin`
    (admin), `usr_viewer` (viewer, no clearances), `usr_supplier` (viewer narrowed to Supplier)
    and the service `svc_agent` (editor on agent/* only, viewer on main)."""
    keys = Keys(
        grant_key(store, "usr_admin", domain="supply", role="admin"),
        grant_key(store, "usr_viewer", domain="supply", role="viewer"),
        grant_key(store, "usr_supplier", domain="supply", role="viewer", kinds=["Supplier"]),
        grant_key(
            store, "svc_agent", kind="service", domain="supply", role="viewer", branch="main"
        ),
    )
    store.add_grant("svc_agent", domain="supply", role="editor", branch="agent/*")
    return keys


def assert_problem(response: httpx.Response | None, status: int, code: str) -> JsonObject:
    """The problem document of an error answer, checked: its status, media type and `code`, and
    the members every problem document has. The one check of every error path, in every package.

    The checks say what they found: pytest does not rewrite the asserts of this module.
    """
    assert response is not None, "the error came without a response"
    found = response.status_code
    assert found == status, f"answered {found}, not {status}: {response.text[:2000]}"
    media_type = response.headers.get("content-type", "")
    assert media_type.startswith("application/problem+json"), f"answered {media_type!r}"
    document = response.json()
    assert document["status"] == status, f"a problem document of status {document['status']}"
    assert document["code"] == code, f"code {document['code']!r}, not {code!r}: {document}"
    missing = {"type", "title", "detail"} - set(document)
    assert not missing, f"a problem document without {sorted(missing)}: {document}"
    return dict(document)


def wait_for_session(
    store: Store, principal: str, session_id: str, steps: int, timeout_s: float = 10.0
) -> TraceSession:
    """The trace session once it holds `steps` steps (Keeper writes them off the request path)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = store.trace_session(principal, session_id)
        if found is not None and len(found.steps) >= steps:
            return found
        if time.monotonic() > deadline:
            held = 0 if found is None else len(found.steps)
            raise AssertionError(f"session {session_id} holds {held} steps, not {steps}")
        time.sleep(0.05)


@dataclass(frozen=True)
class DemoKeeper:
    """A Keeper served on loopback: its URL, its store, the demo principals' API keys (by
    profile: agent, reviewer, admin) and the app served (`wrap`'s answer, when given)."""

    url: str
    store: Store
    keys: dict[str, str]
    app: ASGIApp


@contextmanager
def demo_keeper(
    source: Path,
    directory: Path,
    keeper: Mapping[str, object],
    *,
    wrap: Callable[[ASGIApp], ASGIApp] | None = None,
) -> Iterator[DemoKeeper]:
    """Keeper on a fresh SQLite store in `directory` holding the Domain imported from `source`,
    with the demo's principals (`lorebase demo`), served on loopback until the block ends.

    Args:
        source: an import folder (examples/supply).
        directory: where the database and the demo's profiles file go.
        keeper: the `keeper` settings section (auth mode, trace, rate limits ...).
        wrap: an ASGI middleware around Keeper's app (a test's request recorder).
    """
    from lorebase_keeper.app import create_app
    from lorebase_keeper.cli.demo import setup_demo

    store = Store.open(f"sqlite:///{directory / 'lorebase.sqlite'}")
    try:
        import_directory(store, source)
        app = create_app(Settings(keeper=dict(keeper)), store=store)
        served = wrap(app) if wrap is not None else app
        with serve_in_thread(served) as url:
            profiles = setup_demo(store, directory / "profiles.toml", url=url)
            keys = {made.principal.profile: made.api_key for made in profiles}
            yield DemoKeeper(url, store, keys, served)
    finally:
        store.close()


OIDC_AUDIENCE = "urn:lorebase:keeper"
"""The `aud` of the test provider's access tokens (its default resource)."""

OIDC_REDIRECT_URI = "http://127.0.0.1:5173/auth/callback"
"""The redirect URI of the test provider's `lorebase-web` client (nothing needs to serve it)."""


class CodeFlowOptions(TypedDict, total=False):
    """What `OidcProvider.tokens` passes on to `OidcProvider.authorization_code`."""

    client_id: str
    redirect_uri: str | None
    nonce: str | None
    scope: str


class OidcProvider:
    """A real OpenID Connect provider on loopback: `node tests/oidc/provider.mjs` (oidc-provider).

    Clients `lorebase-web` (public, PKCE, `redirect_uris`) and `lorebase-cli` (public, device
    and code flow); JWT access tokens with `aud` `audience`; any login name signs in through
    the provider's development login form, `alice` with groups [supply-reviewers]. The
    signing keys are the helper's own (`signing_key`, `kid`), so a test can sign a token
    itself; `restart(rotate=True)` brings the provider back on the same port with a new key.

    Use as a context manager; `npm ci` runs once when tests/oidc/node_modules is missing.
    """

    def __init__(
        self,
        *,
        redirect_uris: Sequence[str] = (OIDC_REDIRECT_URI,),
        audience: str = OIDC_AUDIENCE,
        access_token_ttl_s: int = 600,
    ) -> None:
        self.redirect_uris = tuple(redirect_uris)
        self.audience = audience
        self.access_token_ttl_s = access_token_ttl_s
        self.directory = _provider_directory()
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self._scratch = Path(tempfile.mkdtemp(prefix="lorebase-oidc-"))
        self._process: subprocess.Popen[bytes] | None = None
        self._generation = 0
        self.kid = ""
        self.signing_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._new_key()

    def __enter__(self) -> OidcProvider:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
        shutil.rmtree(self._scratch, ignore_errors=True)

    def _new_key(self) -> None:
        self._generation += 1
        self.kid = f"test-key-{self._generation}"
        self.signing_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.signing_key))
        jwk.update(kid=self.kid, alg="RS256", use="sig")
        (self._scratch / "jwks.json").write_text(json.dumps({"keys": [jwk]}))

    def start(self) -> None:
        """Start the provider and wait until it answers its discovery document."""
        _ensure_node_modules(self.directory)
        environment = {
            **os.environ,
            "OIDC_JWKS": str(self._scratch / "jwks.json"),
            "OIDC_AUDIENCE": self.audience,
            "OIDC_REDIRECT_URIS": ",".join(self.redirect_uris),
            "OIDC_ACCESS_TOKEN_TTL": str(self.access_token_ttl_s),
        }
        log = (self._scratch / "provider.log").open("ab")
        self._process = subprocess.Popen(
            ["node", str(self.directory / "provider.mjs"), str(self.port)],
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + 30
        while True:
            if self._process.poll() is not None:
                output = (self._scratch / "provider.log").read_text(errors="replace")
                raise RuntimeError(f"the OIDC provider stopped at start:\n{output[-2000:]}")
            try:
                answer = httpx.get(f"{self.issuer}/.well-known/openid-configuration", timeout=2)
                if answer.status_code == 200:
                    self.discovery: JsonObject = answer.json()
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the OIDC provider did not answer within 30 s")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop the provider (its tokens stay valid for a verifier holding its keys)."""
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=10)
        self._process = None

    def restart(self, *, rotate: bool = False) -> None:
        """Stop and start again on the same port; `rotate`: with a new signing key (new kid)."""
        self.stop()
        if rotate:
            self._new_key()
        self.start()

    def endpoint(self, name: str) -> str:
        """The URL `name` of the provider's discovery document (`token_endpoint`, say)."""
        return str(self.discovery[name])

    def sign(
        self, claims: Mapping[str, object], *, headers: Mapping[str, object] | None = None
    ) -> str:
        """A JWT signed with the provider's current key (RS256, its kid): for negative tests."""
        return jwt.encode(
            dict(claims),
            self.signing_key,
            algorithm="RS256",
            headers={"kid": self.kid, **(headers or {})},
        )

    def claims(self, subject: str, **extra: object) -> dict[str, object]:
        """Claims of a valid access token for `subject` (override any with `extra`)."""
        now = int(time.time())
        found: dict[str, object] = {
            "iss": self.issuer,
            "sub": subject,
            "aud": self.audience,
            "iat": now,
            "exp": now + 300,
            "client_id": "lorebase-web",
            "scope": "openid profile email groups",
        }
        found.update(extra)
        return found

    def authorization_code(
        self,
        login: str,
        *,
        client_id: str = "lorebase-web",
        redirect_uri: str | None = None,
        code_verifier: str,
        nonce: str | None = None,
        scope: str = "openid profile email groups",
    ) -> str:
        """Sign `login` in through the code flow (PKCE S256) like a browser; the code it gets.

        Follows the provider's redirects and fills its development login and consent forms
        with httpx, stopping at the redirect to `redirect_uri`.
        """
        target = redirect_uri or self.redirect_uris[0]
        challenge = (
            base64.urlsafe_b64encode(hashlib.sha256(code_verifier.encode()).digest())
            .rstrip(b"=")
            .decode()
        )
        parameters = {
            "client_id": client_id,
            "response_type": "code",
            "redirect_uri": target,
            "scope": scope,
            "state": secrets.token_urlsafe(8),
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
        if nonce is not None:
            parameters["nonce"] = nonce
        with httpx.Client(timeout=10) as browser:
            answer = browser.get(self.endpoint("authorization_endpoint"), params=parameters)
            for _ in range(20):
                if answer.is_redirect:
                    location = urljoin(str(answer.url), answer.headers["location"])
                    if location.startswith(target):
                        query = parse_qs(urlsplit(location).query)
                        if "code" not in query:
                            raise RuntimeError(f"the provider refused the sign-in: {query}")
                        return query["code"][0]
                    answer = browser.get(location)
                    continue
                if answer.status_code != 200:
                    raise RuntimeError(f"the provider answered {answer.status_code}: {answer.text}")
                action, fields = _form(answer.text)
                if "login" in fields:
                    fields.update(login=login, password="any")
                answer = browser.post(urljoin(str(answer.url), action), data=fields)
        raise RuntimeError("the sign-in did not reach the redirect URI within 20 steps")

    def approve_device(self, user_code: str, login: str) -> None:
        """Approve a device flow's `user_code` as `login`, like a person at the verification page.

        The device (the CLI) then gets its tokens by polling the token endpoint.
        """
        with httpx.Client(timeout=10) as browser:
            answer = browser.get(f"{self.issuer}/device")
            posted = False
            for _ in range(20):
                if answer.is_redirect:
                    answer = browser.get(urljoin(str(answer.url), answer.headers["location"]))
                    continue
                if answer.status_code != 200:
                    raise RuntimeError(f"the provider answered {answer.status_code}: {answer.text}")
                try:
                    action, fields = _form(answer.text)
                except RuntimeError:
                    if posted:  # the page after the last form: the device is approved
                        return
                    raise
                if "user_code" in fields:
                    fields["user_code"] = user_code
                if "login" in fields:
                    fields.update(login=login, password="any")
                answer = browser.post(urljoin(str(answer.url), action), data=fields)
                posted = True
        raise RuntimeError("the device approval did not finish within 20 steps")

    def tokens(self, login: str, **options: Unpack[CodeFlowOptions]) -> JsonObject:
        """The token endpoint's answer (access_token, id_token, ...) after a code flow sign-in."""
        verifier = secrets.token_urlsafe(48)
        client_id = options.get("client_id", "lorebase-web")
        redirect_uri = options.get("redirect_uri") or self.redirect_uris[0]
        code = self.authorization_code(login, code_verifier=verifier, **options)
        answer = httpx.post(
            self.endpoint("token_endpoint"),
            data={
                "grant_type": "authorization_code",
                "code": code,
                "code_verifier": verifier,
                "redirect_uri": redirect_uri,
                "client_id": client_id,
            },
            timeout=10,
        )
        answer.raise_for_status()
        found: JsonObject = answer.json()
        return found

    def access_token(self, login: str) -> str:
        """A JWT access token for `login` (aud `audience`), through the code flow."""
        return str(self.tokens(login)["access_token"])


class _FormParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.action: str | None = None
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = values.get("action") or ""
        elif tag == "input" and values.get("name"):
            self.fields[str(values["name"])] = values.get("value") or ""


def _form(page: str) -> tuple[str, dict[str, str]]:
    parser = _FormParser()
    parser.feed(page)
    if parser.action is None:
        raise RuntimeError(f"the provider's page holds no form: {page[:500]}")
    return parser.action, parser.fields


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (for a server started next)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _provider_directory() -> Path:
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "tests" / "oidc"
        if (candidate / "provider.mjs").is_file():
            return candidate
    candidate = Path.cwd() / "tests" / "oidc"
    if (candidate / "provider.mjs").is_file():
        return candidate
    raise RuntimeError("tests/oidc/provider.mjs not found: run the tests from the repository")


_npm_lock = threading.Lock()


def _ensure_node_modules(directory: Path) -> None:
    with _npm_lock:
        if (directory / "node_modules" / "oidc-provider").is_dir():
            return
        for tool in ("node", "npm"):
            if shutil.which(tool) is None:
                raise RuntimeError(
                    f"the OIDC tests need {tool} (Node 20 or later) on PATH: install Node.js "
                    "(Debian: apt-get install nodejs npm)"
                )
        subprocess.run(
            ["npm", "ci", "--prefix", str(directory), "--no-audit", "--no-fund"],
            check=True,
            capture_output=True,
        )
