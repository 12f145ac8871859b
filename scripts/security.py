"""`make security`: schemathesis against a real Keeper over the supply example, once per role.

The run (docs/security.md):

1. imports `examples/supply` into a fresh SQLite file in a temporary directory, and makes one
   principal with one API key per role with `lorebase key create` and `lorebase grant add`, as
   an administrator would;
2. starts `lorebase serve` (API keys required) on 127.0.0.1 at a free port and waits for
   `/healthz`;
3. sends every operation of the published OpenAPI document without credentials and with an
   unknown key (as a Bearer token and as X-API-Key): each must answer `401 unauthorized` (an
   unauthenticated read is a failure), except those the document marks open (`security: []`);
4. runs `schemathesis run` against `/openapi.json` once per role with that role's credential,
   every check and every phase (examples, coverage, fuzzing, stateful) on, within an equal
   share of the time budget (`--budget-s`, `$LOREBASE_SECURITY_BUDGET_S`). Each auth mode has
   its roles: API keys (viewer, supplier, agent, admin), a browser session signed in with a
   viewer's key (the cookie and its X-CSRF-Token), and, on a second Keeper in auth mode `oidc`
   over the same database, a viewer signed in at a real OpenID Connect provider on loopback
   (tests/oidc, node) with its bearer token. The sweep of step 3 runs against both Keepers,
   with an unknown session cookie and a token signed by a key the issuer does not hold too;
5. stops Keeper, prints a table of the figures and writes them as JSON (`figures.json` in the
   output directory, beside each role's schemathesis reports and Keeper's log).

It exits 1 when any check failed for any role, when a request went out without credentials and
came back with anything but 401, or when Keeper did not start; 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from lorebase_core.sessions import csrf_token

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "scripts" / "security.toml"
SUPPLY = ROOT / "examples" / "supply"
BIN = Path(sys.executable).parent
DOMAIN = "supply"
BUDGET_VARIABLE = "LOREBASE_SECURITY_BUDGET_S"
DEFAULT_BUDGET_S = 360.0
BAD_KEY = "lbk_000000000000_not-a-key"
BAD_SESSION = "lbs_" + "A" * 43
CREDENTIALS: tuple[dict[str, str], ...] = (
    {},
    {"Authorization": f"Bearer {BAD_KEY}"},
    {"X-API-Key": BAD_KEY},
    # with the token of that cookie, so the request passes the CSRF check and meets the 401
    {"Cookie": f"lorebase_session={BAD_SESSION}", "X-CSRF-Token": csrf_token(BAD_SESSION)},
)
"""What the unauthenticated sweep sends: nothing, an unknown key in each place, an unknown session."""
OIDC_LOGIN = "sec-oidc-viewer"


@dataclass(frozen=True)
class Role:
    """A principal of the run and the `lorebase grant add` arguments that make its role.

    `credential` is how its requests authenticate: `api_key` (Authorization: Bearer), `session`
    (a browser session signed in with the principal's key: the cookie and X-CSRF-Token) or
    `oidc` (a bearer token of the OIDC provider, at the Keeper in auth mode oidc).
    """

    name: str
    principal: str
    principal_type: str
    grants: tuple[tuple[str, ...], ...]
    description: str
    credential: str = "api_key"


ROLES = (
    Role("viewer", "usr_viewer", "user", (("viewer",),), "viewer of every branch"),
    Role(
        "supplier",
        "usr_supplier",
        "user",
        (("viewer", "--kind", "Supplier"),),
        "viewer narrowed to the Kind Supplier",
    ),
    Role(
        "agent",
        "svc_agent",
        "service",
        (("editor", "--branch", "main"), ("editor", "--branch", "agent/*")),
        "service principal with the agent grants of docs/auth.md",
    ),
    Role("admin", "usr_admin", "user", (("admin",),), "administrator of the Domain"),
    Role(
        "session",
        "usr_browser",
        "user",
        (("viewer",),),
        "viewer in a browser session (cookie and X-CSRF-Token)",
        credential="session",
    ),
    Role(
        "oidc",
        OIDC_LOGIN,
        "user",
        (("viewer",),),
        "viewer signed in at the OIDC provider (bearer token, auth mode oidc)",
        credential="oidc",
    ),
)
"""Readers first: the writers' runs change the data the later runs read."""

PATH_VALUES = {
    "domain": DOMAIN,
    "kind": "Supplier",
    "key": "S-1001",
    "relation": "supplies",
    "branch": "main",
    "tag": "v1",
    "operation": "update_supplier",
    "proposal": "prp_000000000000",
    "conflict": "cfl_000000000000",
    "session_id": "agent-42",
}
"""Path parameters of the unauthenticated sweep: names that exist, so a 200 would be a leak."""


@dataclass
class RoleFigures:
    role: str
    description: str
    seconds: float = 0.0
    exit_code: int | None = None
    cases: int = 0
    cases_with_failures: int = 0
    unique_failures: int = 0
    errors: int = 0
    operations_tested: int = 0
    phases: dict[str, str] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.exit_code != 0 or self.unique_failures > 0 or self.errors > 0


def main() -> int:
    options = parse_options()
    out = options.out.resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    roles = [role for role in ROLES if role.name in options.roles]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lorebase-security-") as scratch, ExitStack() as stack:
        database = f"sqlite:///{Path(scratch) / 'lorebase.sqlite'}"
        lorebase("import", str(SUPPLY), "--database", database)
        keys = {
            role.name: make_principal(role, database) for role in roles if role.credential != "oidc"
        }
        PATH_VALUES.update(seed_webhook(database))
        base_url = stack.enter_context(keeper(database, out / "keeper.log"))
        openapi = httpx.get(f"{base_url}/openapi.json", timeout=30).json()
        sweep = unauthenticated_sweep(base_url, openapi)
        urls = {role.name: base_url for role in roles}
        headers = {
            role.name: credential_headers(role, keys[role.name], base_url)
            for role in roles
            if role.credential != "oidc"
        }
        oidc_roles = [role for role in roles if role.credential == "oidc"]
        if oidc_roles:
            provider = stack.enter_context(oidc_provider())
            oidc_url = stack.enter_context(
                keeper(database, out / "keeper-oidc.log", oidc_issuer=provider.issuer)
            )
            oidc_openapi = httpx.get(f"{oidc_url}/openapi.json", timeout=30).json()
            merge_sweeps(sweep, unauthenticated_sweep(oidc_url, oidc_openapi, oidc=provider))
            for role in oidc_roles:
                urls[role.name] = oidc_url
                headers[role.name] = oidc_headers(role, provider, oidc_url, database)
        share = options.budget_s / len(roles)
        figures = [
            run_schemathesis(role, headers[role.name], urls[role.name], share, options, out)
            for role in roles
        ]
    report = {
        "seed": options.seed,
        "budget_s": options.budget_s,
        "workers": options.workers,
        "wall_s": round(time.monotonic() - started, 1),
        "schemathesis": schemathesis_version(),
        "operations": sum(len(methods) for methods in openapi["paths"].values()),
        "unauthenticated": sweep,
        "roles": [vars(figure) for figure in figures],
    }
    (out / "figures.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print_table(report, figures)
    # one unit per role and one for the sweep, on the plain closing line CI logs read
    failed_units = sum(figure.failed for figure in figures) + bool(sweep["failures"])
    print(f"\nreports in {out}")
    print(f"security: {len(figures) + 1 - failed_units} passed, {failed_units} failed")
    return 1 if failed_units else 0


def parse_options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--budget-s",
        type=float,
        default=float(os.environ.get(BUDGET_VARIABLE, DEFAULT_BUDGET_S)),
        help=f"seconds of schemathesis for all roles together (${BUDGET_VARIABLE}, "
        f"default {DEFAULT_BUDGET_S:.0f}), shared equally",
    )
    parser.add_argument(
        "--roles",
        type=lambda text: [name.strip() for name in text.split(",") if name.strip()],
        default=[role.name for role in ROLES],
        help="comma-separated roles to run (default: " + ",".join(r.name for r in ROLES) + ")",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=int(os.environ.get("LOREBASE_SECURITY_SEED", "20261201")),
        help="schemathesis seed ($LOREBASE_SECURITY_SEED): the same seed generates the same cases",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="concurrent schemathesis workers (default 1)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "security-report",
        help="directory for the reports (emptied first; default security-report/)",
    )
    options = parser.parse_args()
    unknown = set(options.roles) - {role.name for role in ROLES}
    if unknown or not options.roles:
        parser.error(f"unknown roles {sorted(unknown)}: choose from {[r.name for r in ROLES]}")
    return options


# -- the database and Keeper ----------------------------------------------------------------------


def lorebase(*args: str) -> str:
    """Run the `lorebase` program; its stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOREBASE")}
    done = subprocess.run(
        [str(BIN / "lorebase"), *args], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"lorebase {' '.join(args[:2])} failed: {done.stderr.strip()}")
    return done.stdout


def make_principal(role: Role, database: str) -> str:
    """The principal of a role, its grants, and its API key (the secret)."""
    secret = lorebase(
        "key", "create", role.principal, "--type", role.principal_type, "--database", database
    ).strip()
    for grant in role.grants:
        lorebase("grant", "add", role.principal, *grant, "--domain", DOMAIN, "--database", database)
    return secret


def seed_webhook(database: str) -> dict[str, str]:
    """A webhook with one delivery, so the sweep's webhook and delivery ids exist."""
    from lorebase_core.changes import Origin, UpsertRecord
    from lorebase_platform.settings import WebhookSettings
    from lorebase_store import CommitRequest, Store, create_webhook, fan_out, list_deliveries

    store = Store.open(database)
    try:
        made = create_webhook(
            store,
            DOMAIN,
            url="https://receiver.example.com/lorebase",
            principal="usr_security",
            settings=WebhookSettings(allow_unsealed_keys=True),
        )
        request = CommitRequest(
            domain=DOMAIN,
            branch=None,
            author="usr_security",
            message="A change for the webhook's delivery",
            origin=Origin("api", "security"),
        )
        store.commit(
            request, [UpsertRecord("Supplier", "S-1001", {"city": "Security Run"}, must_exist=True)]
        )
        fan_out(store)
        [delivery] = list_deliveries(store, DOMAIN, made.webhook.id).items
        return {"webhook": made.webhook.id, "delivery": delivery.id}
    finally:
        store.close()


def credential_headers(role: Role, secret: str, base_url: str) -> dict[str, str]:
    """The headers of a role's requests: its key, or the session it signs in to with the key."""
    if role.credential == "api_key":
        return {"Authorization": f"Bearer {secret}"}
    answer = httpx.post(f"{base_url}/api/v1/auth/session", json={"api_key": secret}, timeout=30)
    if answer.status_code != 201:
        raise SystemExit(f"signing in {role.principal} failed: {answer.status_code} {answer.text}")
    cookie = answer.cookies.get("lorebase_session")
    if not cookie:
        raise SystemExit("POST /api/v1/auth/session set no lorebase_session cookie")
    return {"Cookie": f"lorebase_session={cookie}", "X-CSRF-Token": answer.json()["csrf_token"]}


@contextmanager
def oidc_provider() -> Iterator[Any]:
    """The real OpenID Connect provider of the tests (tests/oidc, node) on a loopback port."""
    from lorebase_keeper.testing import OidcProvider

    with OidcProvider() as provider:
        yield provider


def oidc_headers(role: Role, provider: Any, base_url: str, database: str) -> dict[str, str]:
    """A bearer token of `role` signed in at the provider, its principal made and granted.

    The first request with the token makes the principal (with no grants), as a first sign-in
    does; then an administrator grants it, with `lorebase grant add`.
    """
    token = provider.access_token(role.principal)
    auth = {"Authorization": f"Bearer {token}"}
    whoami = httpx.get(f"{base_url}/api/v1/auth/whoami", headers=auth, timeout=30)
    if whoami.status_code != 200:
        raise SystemExit(f"the OIDC token was refused: {whoami.status_code} {whoami.text}")
    principal = whoami.json()["principal"]
    for grant in role.grants:
        lorebase("grant", "add", principal, *grant, "--domain", DOMAIN, "--database", database)
    return auth


def merge_sweeps(into: dict[str, Any], other: dict[str, Any]) -> None:
    into["requests"] += other["requests"]
    into["failures"] += other["failures"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def keeper(database: str, log: Path, *, oidc_issuer: str | None = None) -> Iterator[str]:
    """`lorebase serve` on a free loopback port; its base URL.

    API keys by default; with `oidc_issuer`, auth mode oidc with the tests' provider there.
    """
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOREBASE")}
    # event streams close after 2 s, so a schemathesis case reading one never waits long;
    # schemathesis sends as fast as Keeper answers: it tests Keeper's answers, not its limiter
    env |= {
        "LOREBASE__AGENTS__FEED__MAX_CONNECTION_S": "2",
        "LOREBASE__AGENTS__FEED__HEARTBEAT_S": "1",
        "LOREBASE__KEEPER__RATE_LIMITS__ENABLED": "false",
    }
    command = [str(BIN / "lorebase"), "serve", "--host", "127.0.0.1", "--port", str(port)]
    if oidc_issuer is not None:
        from lorebase_keeper.testing import OIDC_AUDIENCE

        env |= {
            "LOREBASE__KEEPER__AUTH__OIDC__ISSUER": oidc_issuer,
            "LOREBASE__KEEPER__AUTH__OIDC__CLIENT_ID": "lorebase-web",
            "LOREBASE__KEEPER__AUTH__OIDC__AUDIENCE": json.dumps([OIDC_AUDIENCE]),
        }
    command += ["--auth", "oidc" if oidc_issuer else "api_key", "--database", database]
    with log.open("w", encoding="utf-8") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
        base_url = f"http://127.0.0.1:{port}"
        try:
            wait_for(base_url, process)
            yield base_url
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_for(base_url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"Keeper exited with {process.returncode} before answering /healthz")
        try:
            if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise SystemExit("Keeper did not answer /healthz within 60 s")


# -- the unauthenticated sweep --------------------------------------------------------------------


def unauthenticated_sweep(
    base_url: str, openapi: dict[str, Any], *, oidc: Any = None
) -> dict[str, Any]:
    """Every operation that needs credentials, without them and with unknown ones: 401.

    With `oidc` (the provider), also tokens the Keeper in auth mode oidc must refuse: one signed
    by a key the issuer does not hold, and one of the issuer that has expired.
    """
    failures: list[dict[str, Any]] = []
    requests = 0
    open_operations = []
    credentials = list(CREDENTIALS)
    if oidc is not None:
        credentials += [
            {"Authorization": f"Bearer {foreign_token(oidc)}"},
            {"Authorization": f"Bearer {oidc.sign(oidc.claims(OIDC_LOGIN, exp=1))}"},
        ]
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for path, methods in sorted(openapi["paths"].items()):
            for method, operation in sorted(methods.items()):
                if operation.get("security", openapi.get("security")) in (None, []):
                    open_operations.append(f"{method.upper()} {path}")
                    continue
                url = path.format(**PATH_VALUES)
                body = {} if method in {"post", "put", "patch"} else None
                for headers in credentials:
                    requests += 1
                    answer = client.request(method, url, json=body, headers=headers)
                    code = problem_code(answer)
                    if answer.status_code != 401 or code != "unauthorized":
                        failures.append(
                            {
                                "request": f"{method.upper()} {url}",
                                "credentials": next(iter(headers), "none"),
                                "status": answer.status_code,
                                "code": code,
                            }
                        )
    return {"requests": requests, "open": open_operations, "failures": failures}


def foreign_token(provider: Any) -> str:
    """A token with the issuer's claims and key id, signed by a key the issuer never held."""
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    claims = provider.claims(OIDC_LOGIN)
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": provider.kid})


def problem_code(answer: httpx.Response) -> str | None:
    try:
        body = answer.json()
    except ValueError:
        return None
    return body.get("code") if isinstance(body, dict) else None


# -- schemathesis ---------------------------------------------------------------------------------


def schemathesis_version() -> str:
    done = subprocess.run(
        [str(BIN / "schemathesis"), "--version"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip().rsplit(" ", 1)[-1]


def run_schemathesis(
    role: Role,
    headers: dict[str, str],
    base_url: str,
    budget_s: float,
    options: argparse.Namespace,
    out: Path,
) -> RoleFigures:
    """One `schemathesis run` as `role`, within `budget_s` seconds; its figures."""
    reports = out / role.name
    command = [str(BIN / "schemathesis"), "--config-file", str(CONFIG), "--no-color", "run"]
    command += [f"{base_url}/openapi.json"]
    for name, value in headers.items():
        command += ["--header", f"{name}: {value}"]
    if role.credential == "session":
        # signing in again or out would end the session the run authenticates with; and
        # schemathesis's ignored_auth check cannot take the cookie away (it is a raw header to
        # it), so it is off here: the sweep sends every operation with an unknown cookie instead
        command += ["--exclude-path", "/api/v1/auth/session"]
        command += ["--exclude-checks", "ignored_auth"]
    command += ["--checks", "all", "--phases", "examples,coverage,fuzzing,stateful"]
    command += ["--max-time", str(max(1, int(budget_s))), "--seed", str(options.seed)]
    command += ["--workers", str(options.workers), "--request-timeout", "30"]
    command += ["--report", "json,junit", "--report-dir", str(reports)]
    command += ["--report-json-path", str(reports / "report.json")]
    print(f"\n== {role.name} ({role.description}): schemathesis for {budget_s:.0f} s", flush=True)
    figures = RoleFigures(role.name, role.description)
    started = time.monotonic()
    reports.mkdir(parents=True)
    log = reports / "schemathesis.log"
    with log.open("w", encoding="utf-8") as sink:
        try:
            done = subprocess.run(
                command, stdout=sink, stderr=subprocess.STDOUT, timeout=budget_s * 2 + 120
            )
            figures.exit_code = done.returncode
        except subprocess.TimeoutExpired:
            figures.exit_code = -1
    figures.seconds = round(time.monotonic() - started, 1)
    sys.stdout.write(log.read_text(encoding="utf-8"))
    read_report(figures, reports / "report.json")
    return figures


def read_report(figures: RoleFigures, path: Path) -> None:
    if not path.exists():
        figures.errors += 1
        return
    report = json.loads(path.read_text(encoding="utf-8"))
    cases = report["test_cases"]
    figures.cases = cases["generated"]
    figures.cases_with_failures = cases["with_failures"]
    figures.unique_failures = cases["unique_failures"]
    figures.errors += sum(error["count"] for error in report["errors"])
    figures.operations_tested = (report.get("operations") or {}).get("tested", 0)
    figures.phases = {name: phase["status"] for name, phase in (report["phases"] or {}).items()}
    figures.failures = [
        {
            "check": failure["type"],
            "title": failure["title"],
            "count": failure["count"],
            "operations": failure["operations"],
        }
        for failure in report["failures"]
    ]


def print_table(report: dict[str, Any], figures: list[RoleFigures]) -> None:
    sweep = report["unauthenticated"]
    print(
        f"\nschemathesis {report['schemathesis']}, seed {report['seed']}, budget "
        f"{report['budget_s']:.0f} s, {report['operations']} operations, wall "
        f"{report['wall_s']:.0f} s"
    )
    print(
        f"unauthenticated sweep: {sweep['requests']} requests, {len(sweep['failures'])} "
        f"failures, open: {', '.join(sweep['open'])}"
    )
    for failure in sweep["failures"]:
        print(f"  {failure}")
    print("\n| role | cases | cases with failures | unique failures | errors | seconds |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for figure in figures:
        print(
            f"| {figure.role} | {figure.cases} | {figure.cases_with_failures} | "
            f"{figure.unique_failures} | {figure.errors} | {figure.seconds:.0f} |"
        )
    for figure in figures:
        for failure in figure.failures:
            print(
                f"  {figure.role}: {failure['check']}: {failure['title']} x{failure['count']} "
                f"in {', '.join(failure['operations'])}"
            )


if __name__ == "__main__":
    sys.exit(main())
