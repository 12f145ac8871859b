"""The web app end to end: the real build served by a real Keeper, Guide on the scripted model,
the real Chromium (docs/web.md).

One stack per session (`stack`):

- the web app's build (`web_dist`): `npm ci` when web/node_modules is missing, `npm run build`
  when web/dist/index.html is missing or older than a file of web/src (or index.html,
  package.json, package-lock.json, vite.config.ts, tsconfig.json); $LOREBASE_WEB_DIST names a
  build to use as it is instead;
- the scripted OpenAI-compatible model server (`model`, lorebase_inference.testing) on loopback:
  Guide's chat model, and the embeddings of Keeper's Scribe and of Guide;
- a fresh SQLite file holding the supply example and the xss Domain (tests/web/xss: titles and
  values that are markup), with the demo's principals (`lorebase demo`'s `setup_demo`: admin,
  agent, reviewer) and `suppliers`, a viewer of supply narrowed to the Kind Supplier;
- Guide's app under uvicorn on loopback (a thread of this process, so the `model_guard` plugin
  watches its connections), reading that Keeper, allowing the Keeper origin;
- Keeper: `lorebase serve --scribe` in a child process on a free loopback port, Scribe's jobs in
  its process, the agent trace on, serving the build (keeper.web.dist) with keeper.web.guide_url
  naming Guide and the token sign-in (`keeper_session` is a second Keeper on the same database
  with the session sign-in, for the one test of it).

`browser` is Debian's Chromium (/usr/bin/chromium) through Playwright's sync API, one per
session; `page` is a fresh context (1280x800) per test that fails the test on any console error
or page error (`browser_log.allow(...)` names the ones a test expects, such as the refusal a
401 test provokes) and saves a full-page screenshot of its final state to
test-results/web/<test name>.png. `shot(page, "domains")` (tests/web/browsing.py) also saves the screen to
$LOREBASE_WEB_SCREENSHOTS/<name>.png when that is set (docs/web: `LOREBASE_WEB_SCREENSHOTS=docs/web
pytest tests/web`).

Without /usr/bin/chromium the tests skip with a reason, except in CI (CI set), where it is an
error: CI must run them (`apt-get install -y chromium`).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Error, Page, Playwright, sync_playwright

from lorebase_inference.testing import ScriptedModelServer
from lorebase_keeper.cli.demo import setup_demo
from lorebase_keeper.testing import free_port, grant_key, serve_in_thread
from lorebase_platform.settings import Settings
from lorebase_store import Store, import_directory

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
SUPPLY = ROOT / "examples" / "supply"
XSS = Path(__file__).resolve().parent / "xss"
RESULTS = ROOT / "test-results" / "web"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # the tests run as root in containers, where the sandbox cannot start
    "--disable-gpu",  # no GPU here; WebGL (sigma) comes from the next two
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",  # SwiftShader's WebGL without the deprecation fallback
]
VIEWPORT = {"width": 1280, "height": 800}
LOREBASE = str(Path(sys.executable).parent / "lorebase")
SCREENSHOTS_ENV = "LOREBASE_WEB_SCREENSHOTS"
DIST_ENV = "LOREBASE_WEB_DIST"
BUILD_INPUTS = (
    "index.html",
    "package.json",
    "package-lock.json",
    "vite.config.ts",
    "tsconfig.json",
)


# -- the build --------------------------------------------------------------------------------


def _newest_input() -> float:
    files = [path for path in (WEB / "src").rglob("*") if path.is_file()]
    files += [WEB / name for name in BUILD_INPUTS if (WEB / name).is_file()]
    return max(path.stat().st_mtime for path in files)


def _npm(*arguments: str) -> None:
    command = ["npm", *arguments]
    if shutil.which("npm") is None:
        pytest.fail(
            f"the web tests need npm (Node 20 or later) to run `{' '.join(command)}` in web/"
        )
    done = subprocess.run(command, cwd=WEB, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(
            f"`{' '.join(command)}` in web/ failed (exit {done.returncode}); run it there to see "
            f"why:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}",
            pytrace=False,
        )


def build_web() -> Path:
    """web/dist, built first when missing or older than its sources (module docstring); or the
    build $LOREBASE_WEB_DIST names, as it is."""
    given = os.environ.get(DIST_ENV)
    if given:
        if not (Path(given) / "index.html").is_file():
            pytest.fail(f"${DIST_ENV} names {given!r}, which holds no index.html", pytrace=False)
        return Path(given).resolve()
    if not (WEB / "node_modules").is_dir():
        _npm("ci", "--no-audit", "--no-fund")
    index = WEB / "dist" / "index.html"
    if not index.is_file() or index.stat().st_mtime < _newest_input():
        _npm("run", "build")
    return WEB / "dist"


@pytest.fixture(scope="session")
def web_dist() -> Path:
    return build_web()


# -- the stack --------------------------------------------------------------------------------


@dataclass
class Stack:
    """The session's Keeper and Guide: URLs, API keys by profile (admin, agent, reviewer,
    suppliers), the scripted model and the database URL."""

    url: str
    guide_url: str
    keys: dict[str, str]
    model: ScriptedModelServer
    database_url: str
    directory: Path
    session_port: int
    """The port of `keeper_session`, chosen up front so that Guide allows its origin too."""
    proposals: list[str] = field(default_factory=list)

    def client(self, profile: str) -> httpx.Client:
        return httpx.Client(
            base_url=self.url,
            headers={"Authorization": f"Bearer {self.keys[profile]}"},
            timeout=30,
        )


def prepare_database(directory: Path, url: str) -> tuple[str, dict[str, str]]:
    """The database of the stack: supply and xss imported, the principals and their keys."""
    database_url = f"sqlite:///{directory / 'lorebase.sqlite'}"
    store = Store.open(database_url)
    try:
        import_directory(store, SUPPLY)
        import_directory(store, XSS)
        made = setup_demo(store, directory / "profiles.toml", url=url)
        keys = {profile.principal.profile: profile.api_key for profile in made}
        store.add_grant("usr_admin", domain="xss", role="admin")
        keys["suppliers"] = grant_key(
            store, "usr_suppliers", domain="supply", role="viewer", kinds=["Supplier"]
        )
    finally:
        store.close()
    return database_url, keys


def guide_settings(
    keeper_url: str, origins: list[str], model: ScriptedModelServer, directory: Path
) -> Settings:
    return Settings(
        guide={
            "keeper": {"base_url": keeper_url, "timeout_s": 10},
            "http": {"allowed_origins": origins},
            "limits": {"explorations_per_minute": 60, "max_concurrent_per_caller": 2},
            "data_dir": str(directory / "guide"),
        },
        inference={
            "llm": {"base_url": model.base_url, "model": "scripted"},
            "embeddings": {"provider": "endpoint", "base_url": model.base_url},
        },
    )


class KeeperProcess:
    """`lorebase serve` in a child process on `port`, its output in `log`."""

    def __init__(
        self, port: int, log: Path, env: dict[str, str], *arguments: str, auth: str = "api_key"
    ) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        with log.open("w") as output:
            self.process = subprocess.Popen(
                [LOREBASE, "serve", "--auth", auth, "--port", str(port), *arguments],
                env=env,
                cwd=log.parent,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"Keeper did not answer /healthz:\n{log.read_text()[-4000:]}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def keeper_env(
    directory: Path,
    dist: Path,
    guide_url: str | None,
    model: ScriptedModelServer | None,
    sign_in: str,
) -> dict[str, str]:
    """The environment of a Keeper child process: no LOREBASE setting of the caller's, the agent
    trace on, rate limits off (the tests share principals), the web app served."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("LOREBASE")}
    env.update(
        {
            "XDG_DATA_HOME": str(directory / "xdg"),
            "LOREBASE__KEEPER__TRACE__ENABLED": "true",
            "LOREBASE__KEEPER__TRACE__FLUSH_INTERVAL_S": "0.05",
            "LOREBASE__KEEPER__RATE_LIMITS__ENABLED": "false",
            "LOREBASE__KEEPER__WEB__DIST": str(dist),
            "LOREBASE__KEEPER__WEB__SIGN_IN": sign_in,
            "LOREBASE__SCRIBE__IDLE_SLEEP_S": "0.2",
            "LOREBASE__SCRIBE__WORKER_ID": "in-keeper",
        }
    )
    if guide_url is not None:
        env["LOREBASE__KEEPER__WEB__GUIDE_URL"] = guide_url
    if model is not None:
        # Scribe embeds the changed Records of supply (search.embedding) through the scripted
        # server's /v1/embeddings rather than the bundled model
        env["LOREBASE__INFERENCE__EMBEDDINGS__PROVIDER"] = "endpoint"
        env["LOREBASE__INFERENCE__EMBEDDINGS__BASE_URL"] = model.base_url
    return env


@pytest.fixture(scope="session")
def model() -> Iterator[ScriptedModelServer]:
    """The scripted model of the session (Guide's chat and embeddings, Scribe's embeddings);
    a test scripts its explorations through `script`."""
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture
def script(stack: Stack) -> Iterator[ScriptedModelServer]:
    """The session's scripted model, for a test that `add`s the answers of its explorations;
    what the test left unanswered is dropped after it, so it cannot answer the next test's."""
    yield stack.model
    with stack.model._lock:
        stack.model._script.clear()


@pytest.fixture(scope="session")
def stack(
    web_dist: Path, model: ScriptedModelServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    directory = tmp_path_factory.mktemp("web-stack")
    port, session_port = free_port(), free_port()
    while session_port == port:
        session_port = free_port()
    url = f"http://127.0.0.1:{port}"
    database_url, keys = prepare_database(directory, url)
    origins = [url, f"http://127.0.0.1:{session_port}"]
    with serve_in_thread(
        _guide_app(guide_settings(url, origins, model, directory)), name="guide"
    ) as guide_url:
        env = keeper_env(directory, web_dist, guide_url, model, "token")
        keeper = KeeperProcess(
            port, directory / "keeper.log", env, "--scribe", "--database", database_url
        )
        try:
            yield Stack(url, guide_url, keys, model, database_url, directory, session_port)
        finally:
            keeper.stop()


def _guide_app(settings: Settings) -> Any:
    from lorebase_guide.app import create_app

    return create_app(settings)


@pytest.fixture
def keeper_session(stack: Stack, web_dist: Path) -> Iterator[str]:
    """A second Keeper on the stack's database whose web app signs in with a session cookie."""
    port = stack.session_port
    env = keeper_env(stack.directory, web_dist, stack.guide_url, stack.model, "session")
    env["LOREBASE__KEEPER__AUTH__SESSIONS__ENABLED"] = "true"
    keeper = KeeperProcess(
        port, stack.directory / "keeper-session.log", env, "--database", stack.database_url
    )
    try:
        yield keeper.url
    finally:
        keeper.stop()


# -- the browser ------------------------------------------------------------------------------


# Module-scoped: Playwright's sync API keeps an event loop running on the main thread while it
# is started, so the asyncio tests of a module collected after a web module could not run their
# own loop ("Cannot run the event loop while another loop is running").
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    if not CHROMIUM.is_file():
        if os.environ.get("CI"):
            pytest.fail(
                f"CI must run the web tests: no Chromium at {CHROMIUM} (apt-get install -y chromium)"
            )
        pytest.skip(
            f"no Chromium at {CHROMIUM}: `apt-get install -y chromium` to run the web tests"
        )
    with sync_playwright() as started:
        yield started


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield launched
    launched.close()


@dataclass
class BrowserLog:
    """Console errors and page errors of one test's page; `allow` names expected ones."""

    errors: list[str] = field(default_factory=list)
    allowed: list[re.Pattern[str]] = field(default_factory=list)

    def allow(self, pattern: str) -> None:
        """Accept console errors matching `pattern` (a regular expression) in this test."""
        self.allowed.append(re.compile(pattern))

    def console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            where = message.location.get("url", "")
            self.errors.append(f"console.error: {message.text} ({where})")

    def page_error(self, error: Error) -> None:
        self.errors.append(f"page error: {error.name}: {error.message}\n{error.stack or ''}")

    def unexpected(self) -> list[str]:
        return [text for text in self.errors if not any(p.search(text) for p in self.allowed)]


@pytest.fixture
def browser_log() -> BrowserLog:
    return BrowserLog()


def _test_file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")


@pytest.fixture
def page(
    browser: Browser, browser_log: BrowserLog, request: pytest.FixtureRequest
) -> Iterator[Page]:
    context = browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
    context.set_default_timeout(15_000)
    opened = context.new_page()
    opened.on("console", browser_log.console)
    opened.on("pageerror", browser_log.page_error)
    try:
        yield opened
    finally:
        RESULTS.mkdir(parents=True, exist_ok=True)
        try:
            opened.screenshot(
                path=RESULTS / f"{_test_file_name(request.node.name)}.png", full_page=True
            )
        finally:
            context.close()
    unexpected = browser_log.unexpected()
    assert not unexpected, "the page logged errors:\n" + "\n".join(unexpected)
