"""The web app in the real Chromium: the first screen, the Canvas while panning, the JavaScript
shipped, each against a baseline measured in the same run.

One Keeper (`lorebase serve` in a child process, the fixtures of tests/web/conftest.py) serves
the supply example with the demo's principals and the web app's build, plus `bare.html`, a bare
static page added to a copy of the build. The browser is Debian's Chromium (/usr/bin/chromium,
the flags of the web tests: SwiftShader WebGL), signed in once with the session sign-in (the
cookie is reused, so each navigation is a returning user's first screen, cache cold: a new
browser context each time).

- `first_screen`: from navigation start to the overview of supply showing its data (the Kinds'
  counts, the health summary and the recent changes), taken in the page by a MutationObserver
  installed before the app's scripts (`performance.now()`, whose origin is the navigation's
  start); the baseline is `bare.html` showing its heading, the same way. Median of `--runs`
  navigations each. Target: the median within 1.5 s.
- `canvas_pan`: the Canvas of S-1001 with its graph grown to 2,000 nodes and 3,000 edges through
  `window.__lorebaseCanvas` (graphology's API), panned with mouse drags for `--pan-s` seconds
  while requestAnimationFrame counts the frames; the baseline is the same drags over
  `bare.html`. Target: 30 fps or more.
- `javascript`: the sum of web/dist/assets/*.js gzipped (level 9), and the entry chunk alone.
  Target: under 500 KB.

    .venv/bin/python bench/web/run.py [--runs 10] [--pan-s 3]

Figures go to bench/web/results/latest.json. Needs Chromium at /usr/bin/chromium and npm (the
build, when web/dist is older than web/src; $LOREBASE_WEB_DIST names a build to use as it is).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, BrowserContext, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests.web: the build, Keeper
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for common.py
from tests.web.conftest import (
    CHROMIUM,
    CHROMIUM_ARGS,
    VIEWPORT,
    KeeperProcess,
    build_web,
    keeper_env,
    prepare_database,
)

from common import git_commit, log, machine_info
from lorebase_keeper.testing import free_port

HERE = Path(__file__).resolve().parent
TARGETS = {"first_screen_ms": 1500.0, "canvas_fps": 30.0, "javascript_gzip_kb": 500.0}
NODES, EDGES = 2000, 3000
BARE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>bare</title></head>"
    "<body><h1>Domains</h1><p>A bare static page.</p></body></html>\n"
)

# Installed before any script of the page: the time (ms since the navigation started) when the
# screen shows its data, in window.__shown.
SHOWN_SCRIPT = """
(() => {
  const ready = () => {
    if (location.pathname.endsWith('/bare.html')) return !!document.querySelector('h1');
    const counts = [...document.querySelectorAll('td.num')];
    return counts.length > 0 && counts.every(c => /^\\d+$/.test(c.textContent.trim()))
      && !!document.querySelector('dl.facts')
      && document.querySelectorAll('ol.changes li').length > 0;
  };
  const observer = new MutationObserver(() => {
    if (window.__shown === undefined && ready()) {
      window.__shown = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true, characterData: true });
})();
"""

GROW_SCRIPT = """
([nodes, edges]) => {
  const { sigma, graph } = window.__lorebaseCanvas;
  let seed = 42;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const colors = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd'];
  for (let i = graph.order; i < nodes; i++) {
    graph.addNode(`Bench/N-${i}`, {
      label: `Bench node ${i}`, x: random() * 1000, y: random() * 1000, size: 4,
      color: colors[i % colors.length],
    });
  }
  const ids = graph.nodes();
  let added = 0;
  while (graph.size < edges && added < edges * 2) {
    added++;
    const a = ids[Math.floor(random() * ids.length)], b = ids[Math.floor(random() * ids.length)];
    if (a !== b && !graph.hasEdge(a, b)) graph.addEdge(a, b, { size: 1, color: '#999' });
  }
  sigma.refresh();
  return { order: graph.order, size: graph.size };
}
"""

COUNT_FRAMES = """
() => {
  window.__frames = 0;
  window.__counting = true;
  const tick = () => { if (window.__counting) { window.__frames++; requestAnimationFrame(tick); } };
  requestAnimationFrame(tick);
  window.__countStart = performance.now();
}
"""

STOP_FRAMES = """
() => { window.__counting = false;
        return { frames: window.__frames, ms: performance.now() - window.__countStart }; }
"""


def sign_in_session(url: str, key: str) -> list[dict[str, Any]]:
    """The session cookie of `key` (POST /api/v1/auth/session), for the browser contexts."""
    answer = httpx.post(f"{url}/api/v1/auth/session", json={"api_key": key}, timeout=30)
    answer.raise_for_status()
    cookie = answer.cookies.jar
    return [
        {"name": c.name, "value": c.value or "", "url": url, "httpOnly": True, "sameSite": "Lax"}
        for c in cookie
    ]


def new_context(browser: Browser, cookies: list[dict[str, Any]]) -> BrowserContext:
    context = browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
    context.add_cookies(cookies)  # type: ignore[arg-type]
    context.add_init_script(SHOWN_SCRIPT)
    return context


def shown_ms(browser: Browser, cookies: list[dict[str, Any]], url: str) -> float:
    context = new_context(browser, cookies)
    try:
        page = context.new_page()
        page.goto(url, wait_until="commit")
        page.wait_for_function("() => window.__shown !== undefined", timeout=30_000)
        return float(page.evaluate("() => window.__shown"))
    finally:
        context.close()


def first_screen(browser: Browser, cookies: list[dict[str, Any]], url: str, runs: int) -> Any:
    shown_ms(browser, cookies, f"{url}/supply/")  # warm Keeper's caches and the OS's files
    shown_ms(browser, cookies, f"{url}/bare.html")
    app: list[float] = []
    bare: list[float] = []
    for _ in range(runs):  # interleaved, so that a slow moment of the machine hits both
        app.append(shown_ms(browser, cookies, f"{url}/supply/"))
        bare.append(shown_ms(browser, cookies, f"{url}/bare.html"))
    median_app, median_bare = statistics.median(app), statistics.median(bare)
    return {
        "app_ms": {
            "median": round(median_app, 1),
            "min": round(min(app), 1),
            "max": round(max(app), 1),
        },
        "bare_ms": {
            "median": round(median_bare, 1),
            "min": round(min(bare), 1),
            "max": round(max(bare), 1),
        },
        "ratio": round(median_app / median_bare, 2),
        "runs": runs,
    }


def pan(page: Any, seconds: float) -> dict[str, float]:
    box = page.locator(".canvas").bounding_box() if page.locator(".canvas").count() else None
    if box is None:
        box = {"x": 0, "y": 0, "width": VIEWPORT["width"], "height": VIEWPORT["height"]}
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    camera = "() => window.__lorebaseCanvas ? window.__lorebaseCanvas.sigma.getCamera().getState() : null"
    before = page.evaluate(camera)
    page.evaluate(COUNT_FRAMES)
    deadline = time.monotonic() + seconds
    direction = 1
    while time.monotonic() < deadline:
        page.mouse.move(cx - 150 * direction, cy - 60 * direction)
        page.mouse.down()
        page.mouse.move(cx + 150 * direction, cy + 60 * direction, steps=30)
        page.mouse.up()
        direction = -direction
    counted = page.evaluate(STOP_FRAMES)
    after = page.evaluate(camera)
    if before is not None:
        assert after != before, "the drags did not move the Canvas's camera"
    return {
        "frames": counted["frames"],
        "seconds": round(counted["ms"] / 1000, 2),
        "fps": round(counted["frames"] / (counted["ms"] / 1000), 1),
    }


def canvas_pan(browser: Browser, cookies: list[dict[str, Any]], url: str, seconds: float) -> Any:
    context = new_context(browser, cookies)
    try:
        page = context.new_page()
        page.goto(f"{url}/supply/canvas?ref=Supplier/S-1001")
        page.wait_for_function("() => window.__lorebaseCanvas?.graph.order > 1", timeout=30_000)
        page.wait_for_timeout(1000)  # the app's own layout settles
        grown = page.evaluate(GROW_SCRIPT, [NODES, EDGES])
        page.wait_for_timeout(500)
        canvas = pan(page, seconds)
        page.goto(f"{url}/bare.html")
        bare = pan(page, seconds)
    finally:
        context.close()
    return {
        "nodes": grown["order"],
        "edges": grown["size"],
        "canvas": canvas,
        "bare": bare,
        "fps": canvas["fps"],
        "ratio": round(canvas["fps"] / bare["fps"], 2),
    }


def javascript(dist: Path) -> dict[str, Any]:
    files = sorted((dist / "assets").glob("*.js"))
    sizes = {f.name: len(gzip.compress(f.read_bytes(), compresslevel=9)) for f in files}
    index = (dist / "index.html").read_text()
    entry = [name for name in sizes if name in index]
    return {
        "files": len(files),
        "raw_kb": round(sum(f.stat().st_size for f in files) / 1024, 1),
        "gzip_kb": round(sum(sizes.values()) / 1024, 1),
        "entry_gzip_kb": round(sum(sizes[n] for n in entry) / 1024, 1),
        "by_file_gzip_kb": {name: round(size / 1024, 1) for name, size in sizes.items()},
    }


def run(runs: int, pan_s: float) -> dict[str, Any]:
    started = time.perf_counter()
    if not CHROMIUM.is_file():
        raise SystemExit(f"no Chromium at {CHROMIUM}: apt-get install -y chromium")
    built = build_web()
    with tempfile.TemporaryDirectory(prefix="lorebase-bench-web-") as work:
        workdir = Path(work)
        dist = workdir / "dist"
        shutil.copytree(built, dist)
        (dist / "bare.html").write_text(BARE)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        database_url, keys = prepare_database(workdir, url)
        machine = machine_info("sqlite", database_url)
        log(f"code: {machine['git_commit']}")
        env = keeper_env(workdir, dist, None, None, "session")
        keeper = KeeperProcess(port, workdir / "keeper.log", env, "--database", database_url)
        try:
            cookies = sign_in_session(url, keys["admin"])
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
                )
                try:
                    log(f"first screen: {runs} navigations each")
                    first = first_screen(browser, cookies, url, runs)
                    log(f"canvas: {NODES} nodes, {EDGES} edges, panning {pan_s} s")
                    canvas = canvas_pan(browser, cookies, url, pan_s)
                    version = browser.version
                finally:
                    browser.close()
        finally:
            keeper.stop()
    js = javascript(built)
    if git_commit() != machine["git_commit"]:
        machine["git_commit_at_end"] = git_commit()
    machine["load_average_at_end"] = [round(load, 2) for load in os.getloadavg()]
    machine["chromium"] = version
    checks = {
        "first_screen_ms": first["app_ms"]["median"] <= TARGETS["first_screen_ms"],
        "canvas_fps": canvas["fps"] >= TARGETS["canvas_fps"],
        "javascript_gzip_kb": js["gzip_kb"] < TARGETS["javascript_gzip_kb"],
    }
    return {
        "benchmark": "web",
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 1),
        "machine": machine,
        "results": {"first_screen": first, "canvas_pan": canvas, "javascript": js},
        "targets": TARGETS,
        "checks": checks,
        "passed": all(checks.values()),
    }


def print_report(report: dict[str, Any]) -> None:
    first = report["results"]["first_screen"]
    canvas = report["results"]["canvas_pan"]
    js = report["results"]["javascript"]
    checks = report["checks"]
    mark = {True: "pass", False: "MISSED"}
    print("web benchmark (Chromium, SwiftShader WebGL)")
    print(
        f"first screen (overview of supply with its data): median {first['app_ms']['median']} ms"
        f" (min {first['app_ms']['min']}, max {first['app_ms']['max']}), bare page "
        f"{first['bare_ms']['median']} ms, ratio {first['ratio']}"
        f" -> {mark[checks['first_screen_ms']]} (<= {report['targets']['first_screen_ms']} ms)"
    )
    print(
        f"canvas, {canvas['nodes']} nodes and {canvas['edges']} edges, panning: "
        f"{canvas['fps']} fps ({canvas['canvas']['frames']} frames in "
        f"{canvas['canvas']['seconds']} s), bare page {canvas['bare']['fps']} fps, ratio "
        f"{canvas['ratio']} -> {mark[checks['canvas_fps']]} (>= {report['targets']['canvas_fps']})"
    )
    print(
        f"javascript: {js['gzip_kb']} KB gzipped in {js['files']} files ({js['raw_kb']} KB raw;"
        f" entry {js['entry_gzip_kb']} KB) -> {mark[checks['javascript_gzip_kb']]}"
        f" (< {report['targets']['javascript_gzip_kb']} KB)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=10, help="navigations per side")
    parser.add_argument("--pan-s", type=float, default=3.0, help="seconds of panning per side")
    parser.add_argument("--out", type=Path, help="JSON file (default results/latest.json)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    report = run(args.runs, args.pan_s)
    out = args.out or HERE / "results" / "latest.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print_report(report)
    print(f"wrote {out}")
    return 1 if args.check and not report["passed"] else 0


if __name__ == "__main__":
    sys.exit(main())
