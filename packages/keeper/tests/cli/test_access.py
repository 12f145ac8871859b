"""`lorebase key` and `lorebase grant` as an administrator runs them, against a real database.

The commands write straight to the database (`--database`); the keys they make then authenticate
against a Keeper over that same database.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import click
import httpx
import pytest
from click.testing import CliRunner, Result

from lorebase_keeper.app import create_app
from lorebase_keeper.cli.access import grant, key
from lorebase_keeper.cli.access import principal as principal_command
from lorebase_keeper.testing import Keys, assert_problem
from lorebase_platform.settings import Settings
from lorebase_store import Store

SUPPLY = "/api/v1/domains/supply"
KEY = r"lbk_[0-9a-f]{12}_[A-Za-z0-9_-]+"


def run(command: click.Command, *args: str, database: str) -> Result:
    runner = CliRunner(env={"LOREBASE_CONFIG": None})
    return runner.invoke(command, [*args, "--database", database], catch_exceptions=False)


def create_key(database: str, principal: str, *options: str) -> str:
    """The secret `lorebase key create` prints."""
    result = run(key, "create", principal, *options, database=database)
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def add_grant(database: str, principal: str, role: str, *options: str) -> dict[str, Any]:
    result = run(grant, "add", principal, role, "--domain", "supply", *options, database=database)
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def key_ids(database: str) -> list[str]:
    result = run(key, "list", database=database)
    assert result.exit_code == 0, result.output
    return [line.split()[0] for line in result.stdout.splitlines()]


@asynccontextmanager
async def keeper_over(store: Store, secret: str) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(keeper={"auth": {"mode": "api_key", "authz": {"grants_cache_ttl_s": 0}}})
    transport = httpx.ASGITransport(app=create_app(settings, store=store))
    async with httpx.AsyncClient(
        transport=transport, base_url="http://keeper.test", headers=Keys.header(secret)
    ) as http:
        yield http


# -- lorebase key ----------------------------------------------------------------------------------


def test_key_create_prints_the_secret_alone_on_stdout(database_url: str, store: Store) -> None:
    result = run(key, "create", "svc_risk", "--type", "service", database=database_url)
    assert result.exit_code == 0, result.output
    [secret] = result.stdout.splitlines()
    assert re.fullmatch(KEY, secret)
    assert secret not in result.stderr
    assert "not shown again" in result.stderr
    found = store.key_principal(secret)
    assert found is not None
    assert (found.id, found.type) == ("svc_risk", "service")


def test_key_create_makes_the_principal_a_user_by_default(database_url: str, store: Store) -> None:
    secret = create_key(database_url, "usr_ana")
    found = store.key_principal(secret)
    assert found is not None
    assert (found.id, found.type) == ("usr_ana", "user")


def test_each_key_create_makes_a_new_secret(database_url: str, store: Store) -> None:
    first = create_key(database_url, "usr_ana")
    second = create_key(database_url, "usr_ana")
    assert first != second
    assert len(key_ids(database_url)) == 2


def test_key_list_never_shows_a_secret(database_url: str, store: Store) -> None:
    secret = create_key(database_url, "usr_ana", "--description", "laptop")
    result = run(key, "list", database=database_url)
    assert result.exit_code == 0
    [line] = result.stdout.splitlines()
    key_id, secret_part = secret.removeprefix("lbk_").split("_", 1)
    assert line.split()[:2] == [key_id, "usr_ana"]
    assert "active" in line
    assert line.endswith("laptop")
    assert secret_part not in result.output


def test_key_list_filters_by_principal(database_url: str, store: Store) -> None:
    create_key(database_url, "usr_ana")
    create_key(database_url, "usr_ben")
    result = run(key, "list", "--principal", "usr_ben", database=database_url)
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["usr_ben"]


def test_key_create_refuses_a_bad_principal_id(database_url: str, store: Store) -> None:
    result = run(key, "create", "Not A Principal", database=database_url)
    assert result.exit_code == 1
    assert "is not a principal id" in result.stderr
    assert result.stdout == ""


def test_key_create_refuses_an_unknown_type(database_url: str, store: Store) -> None:
    result = run(key, "create", "usr_ana", "--type", "robot", database=database_url)
    assert result.exit_code == 2
    assert key_ids(database_url) == []


@pytest.mark.anyio
async def test_a_created_key_authenticates_against_keeper(database_url: str, supply: Store) -> None:
    secret = create_key(database_url, "usr_ana")
    add_grant(database_url, "usr_ana", "viewer")
    async with keeper_over(supply, secret) as http:
        whoami = await http.get("/api/v1/auth/whoami")
        record = await http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001")
    assert whoami.json()["principal"] == "usr_ana"
    assert record.status_code == 200
    assert record.json()["values"]["vat_number"] == "***"


@pytest.mark.anyio
async def test_key_revoke_makes_the_key_401(database_url: str, supply: Store) -> None:
    secret = create_key(database_url, "usr_ana")
    add_grant(database_url, "usr_ana", "viewer")
    [key_id] = key_ids(database_url)
    async with keeper_over(supply, secret) as http:
        before = await http.get(f"{SUPPLY}/schema")
        result = run(key, "revoke", key_id, database=database_url)
        after = await http.get(f"{SUPPLY}/schema")
    assert result.exit_code == 0, result.output
    assert f"API key {key_id} of usr_ana revoked" in result.stdout
    assert before.status_code == 200
    assert_problem(after, 401, "unauthorized")
    listed = run(key, "list", database=database_url).stdout
    assert "revoked" in listed
    assert "active" not in listed


def test_key_revoke_of_an_unknown_key_exits_1(database_url: str, store: Store) -> None:
    result = run(key, "revoke", "000000000000", database=database_url)
    assert result.exit_code == 1
    assert "error: API key '000000000000' does not exist" in result.stderr


def test_key_revoke_twice_keeps_the_first_revocation(database_url: str, store: Store) -> None:
    create_key(database_url, "usr_ana")
    [key_id] = key_ids(database_url)
    first = run(key, "revoke", key_id, database=database_url)
    second = run(key, "revoke", key_id, database=database_url)
    assert (first.exit_code, second.exit_code) == (0, 0)
    assert first.stdout == second.stdout


# -- lorebase grant --------------------------------------------------------------------------------


def test_grant_add_prints_the_grant(database_url: str, supply: Store) -> None:
    document = add_grant(database_url, "usr_ana", "editor", "--branch", "agent/*")
    assert {name: document[name] for name in ("principal", "domain", "branch", "role")} == {
        "principal": "usr_ana",
        "domain": "supply",
        "branch": "agent/*",
        "role": "editor",
    }
    assert (document["kinds"], document["clearances"]) == (None, [])
    assert isinstance(document["id"], int)


def test_grant_add_with_kinds_and_clearances(database_url: str, supply: Store) -> None:
    document = add_grant(
        database_url,
        "usr_ana",
        "viewer",
        "--kind",
        "Supplier",
        "--kind",
        "Part",
        "--clearance",
        "pii",
    )
    assert document["kinds"] == ["Part", "Supplier"]
    assert document["clearances"] == ["pii"]


@pytest.mark.anyio
async def test_a_narrowed_grant_with_a_clearance_shapes_what_keeper_answers(
    database_url: str, supply: Store
) -> None:
    secret = create_key(database_url, "usr_ana")
    add_grant(database_url, "usr_ana", "viewer", "--kind", "Supplier", "--clearance", "pii")
    async with keeper_over(supply, secret) as http:
        record = await http.get(f"{SUPPLY}/kinds/Supplier/records/S-1001")
        part = await http.get(f"{SUPPLY}/kinds/Part/records/P-10028")
    values = record.json()["values"]
    assert values["contact_email"] == "marta.wisniewska@kavsen.example"
    assert values["vat_number"] == "***"
    assert_problem(part, 404, "kind-not-found")


def test_grant_list_prints_one_json_document_per_grant(database_url: str, supply: Store) -> None:
    first = add_grant(database_url, "usr_ana", "viewer", "--branch", "main")
    second = add_grant(database_url, "usr_ben", "admin")
    result = run(grant, "list", database=database_url)
    assert result.exit_code == 0
    assert [json.loads(line) for line in result.stdout.splitlines()] == [first, second]
    only = run(grant, "list", "--principal", "usr_ben", database=database_url)
    assert [json.loads(line) for line in only.stdout.splitlines()] == [second]


@pytest.mark.anyio
async def test_grant_revoke_withdraws_the_read(database_url: str, supply: Store) -> None:
    secret = create_key(database_url, "usr_ana")
    made = add_grant(database_url, "usr_ana", "viewer")
    async with keeper_over(supply, secret) as http:
        before = await http.get(f"{SUPPLY}/schema")
        result = run(grant, "revoke", str(made["id"]), database=database_url)
        after = await http.get(f"{SUPPLY}/schema")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"grant {made['id']} revoked"
    assert before.status_code == 200
    assert_problem(after, 404, "domain-not-found")  # without a grant, as if it did not exist
    assert run(grant, "list", database=database_url).stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["add", "usr_ana", "owner", "--domain", "supply"], id="unknown-role"),
        pytest.param(["add", "usr_ana", "viewer"], id="no-domain"),
        pytest.param(
            ["add", "usr_ana", "viewer", "--domain", "supply", "--clearance", "secret"],
            id="unknown-clearance",
        ),
        pytest.param(["revoke", "first"], id="grant-id-not-a-number"),
    ],
)
def test_a_usage_error_exits_2_and_changes_nothing(
    database_url: str, store: Store, args: list[str]
) -> None:
    result = run(grant, *args, database=database_url)
    assert result.exit_code == 2
    assert "Usage:" in result.stderr
    assert store.grants() == []


def test_grant_revoke_of_an_unknown_grant_exits_1(database_url: str, store: Store) -> None:
    result = run(grant, "revoke", "999", database=database_url)
    assert result.exit_code == 1
    assert "error: Grant 999 does not exist" in result.stderr


def test_a_duplicate_grant_exits_1_naming_the_existing_one(
    database_url: str, supply: Store
) -> None:
    made = add_grant(database_url, "usr_ana", "viewer")
    result = run(grant, "add", "usr_ana", "viewer", "--domain", "supply", database=database_url)
    assert result.exit_code == 1
    assert f"(grant {made['id']})" in result.stderr


def test_grant_add_refuses_an_unknown_domain_naming_the_closest(
    database_url: str, supply: Store
) -> None:
    result = run(grant, "add", "usr_ana", "viewer", "--domain", "suply", database=database_url)
    assert result.exit_code == 1
    assert result.stderr == (
        "error: Domain 'suply' does not exist; did you mean 'supply'? Domains: supply\n"
    )
    assert supply.grants() == []


def test_grant_add_refuses_an_unknown_kind_naming_the_closest(
    database_url: str, supply: Store
) -> None:
    result = run(
        grant,
        "add",
        "usr_ana",
        "viewer",
        "--domain",
        "supply",
        "--kind",
        "Suplier",
        database=database_url,
    )
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "error: Kind 'Suplier' does not exist in Domain 'supply'; did you mean 'Supplier'? "
        "Kinds: Contract, Part, Plant, PurchaseOrder, RiskFlag, Supplier"
    )
    assert supply.grants() == []


def test_grant_add_takes_a_glob_that_matches_no_domain_yet(database_url: str, store: Store) -> None:
    result = run(grant, "add", "usr_ana", "viewer", "--domain", "*", database=database_url)
    assert result.exit_code == 0, result.output
    assert [found.domain for found in store.grants()] == ["*"]


def test_principal_link_oidc_binds_an_identity_and_unlink_removes_it(
    database_url: str, store: Store
) -> None:
    database = database_url
    store.ensure_principal("usr_dana")
    linked = run(
        principal_command,
        "link-oidc",
        "usr_dana",
        "--issuer",
        "https://id.example",
        "--subject",
        "abc-123",
        database=database,
    )
    assert linked.exit_code == 0, linked.output
    assert [(i.issuer, i.subject, i.principal_id) for i in store.oidc_identities()] == [
        ("https://id.example", "abc-123", "usr_dana")
    ]
    again = run(
        principal_command,
        "link-oidc",
        "usr_dana",
        "--issuer",
        "https://id.example",
        "--subject",
        "other",
        database=database,
    )
    assert again.exit_code == 1
    assert "bound to subject 'abc-123'" in again.stderr
    unknown = run(
        principal_command,
        "link-oidc",
        "nobody",
        "--issuer",
        "https://id.example",
        "--subject",
        "x",
        database=database,
    )
    assert unknown.exit_code == 1
    assert "'nobody' does not exist" in unknown.stderr
    no_issuer = run(principal_command, "link-oidc", "usr_dana", "--subject", "x", database=database)
    assert no_issuer.exit_code == 1
    assert "give --issuer" in no_issuer.stderr
    unlinked = run(principal_command, "unlink-oidc", "usr_dana", database=database)
    assert unlinked.exit_code == 0, unlinked.output
    assert store.oidc_identities() == []
