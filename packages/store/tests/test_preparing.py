"""What an execution reads before its write: one read transaction, the Domain's row read once."""

from __future__ import annotations

import re

import pytest
from packages.store.tests.test_executions import DOMAIN, run

from lorebase_core.errors import BranchNotFound, Forbidden, IdempotencyKeyReused, InvalidInput
from lorebase_store import DomainInfo, PreparedWrite, prepare_write
from lorebase_store.store import Store
from lorebase_store.testing import statements_run


def domain_rows(statements: list[str]) -> list[str]:
    """The statements among `statements` that read the `domains` table."""
    return [statement for statement in statements if re.search(r"\bFROM domains\b", statement)]


def prepare(
    store: Store,
    branch: str | None = None,
    *,
    key: str | None = None,
    calls: list[str] | None = None,
) -> PreparedWrite:
    called = calls if calls is not None else []

    def check(domain: DomainInfo) -> None:
        called.append(f"check {domain.name}")

    def authorize(branch_name: str) -> None:
        called.append(f"authorize {branch_name}")

    return prepare_write(
        store.engine,
        DOMAIN,
        branch,
        principal="usr_agent",
        idempotency_key=key,
        check=check,
        authorize=authorize,
    )


def test_a_write_is_prepared_reading_the_domain_row_once(supply: Store) -> None:
    calls: list[str] = []
    with statements_run(supply) as seen:
        prepared = prepare(supply, calls=calls)
    assert len(domain_rows(seen)) == 1
    assert calls == ["check supply", "authorize main"]
    assert prepared.domain == supply.domain(DOMAIN)
    assert prepared.branch == supply.branch(DOMAIN, "main")
    assert prepared.schema.digest == supply.schema(DOMAIN, branch="main").digest
    assert prepared.earlier is None
    assert prepared.replayed("any digest") is None


def test_the_checks_answer_before_what_comes_after_them(supply: Store) -> None:
    def refuse_domain(domain: DomainInfo) -> None:
        raise InvalidInput("refused", [])

    def refuse_branch(branch: str) -> None:
        raise Forbidden(f"not {branch}")

    engine = supply.engine
    with pytest.raises(InvalidInput):  # before the unknown branch is looked up
        prepare_write(
            engine,
            DOMAIN,
            "no-such-branch",
            principal="usr_agent",
            idempotency_key=None,
            check=refuse_domain,
            authorize=refuse_branch,
        )
    with pytest.raises(BranchNotFound):
        prepare(supply, "no-such-branch")
    with pytest.raises(Forbidden, match="not main"):
        prepare_write(
            engine,
            DOMAIN,
            None,
            principal="usr_agent",
            idempotency_key=None,
            check=lambda domain: None,
            authorize=refuse_branch,
        )


def test_the_earlier_execution_under_the_key_replays_and_another_request_is_refused(
    supply: Store,
) -> None:
    first = run(supply, "inv_first").invocation
    prepared = prepare(supply, key="key-1")
    assert prepared.earlier == first
    assert prepared.replayed(first.request_digest) == first
    with pytest.raises(IdempotencyKeyReused) as before_the_write:
        prepared.replayed("another-request")
    with pytest.raises(IdempotencyKeyReused) as in_the_write:
        run(supply, "inv_second", digest="another-request")
    assert before_the_write.value.detail == in_the_write.value.detail
    assert before_the_write.value.extra == {"invocation_id": first.id}
    assert prepare(supply, key="key-2").earlier is None
    assert prepare(supply).earlier is None  # no key: nothing is looked up
