"""Errors and Issues shared by every package (errors.py)."""

from __future__ import annotations

import pytest

from lorebase_core.errors import (
    MAX_ISSUES,
    QUOTED_CHARS,
    AlreadyExists,
    AmbiguousRevision,
    BadRequest,
    BranchNotFound,
    Conflict,
    DomainNotFound,
    ImportInvalid,
    ImportOverwrites,
    InvalidInput,
    InvalidText,
    Issue,
    KindNotFound,
    LorebaseError,
    NotFound,
    RecordNotFound,
    RelationNotFound,
    RevisionNotFound,
    SchemaInvalid,
    StaleHead,
    ValuesInvalid,
    capped,
    quoted,
    shortened,
)


def test_issue_text_and_json() -> None:
    issue = Issue("kinds.Supplier.key", "required", "missing")
    assert str(issue) == "kinds.Supplier.key: required"
    assert issue.to_json() == {
        "path": "kinds.Supplier.key",
        "message": "required",
        "code": "missing",
    }
    assert str(Issue("", "expected a mapping at the top")) == "expected a mapping at the top"
    assert Issue("a", "b").code == "invalid"


@pytest.mark.parametrize(
    ("error", "parent", "status", "code"),
    [
        pytest.param(LorebaseError, Exception, 500, "internal", id="base"),
        pytest.param(BadRequest, LorebaseError, 400, "bad-request", id="bad-request"),
        pytest.param(InvalidInput, BadRequest, 422, "invalid-input", id="invalid-input"),
        pytest.param(InvalidText, InvalidInput, 422, "invalid-text", id="invalid-text"),
        pytest.param(SchemaInvalid, InvalidInput, 422, "schema-invalid", id="schema-invalid"),
        pytest.param(ValuesInvalid, InvalidInput, 422, "values-invalid", id="values-invalid"),
        pytest.param(ImportInvalid, InvalidInput, 422, "import-invalid", id="import-invalid"),
        pytest.param(NotFound, LorebaseError, 404, "not-found", id="not-found"),
        pytest.param(DomainNotFound, NotFound, 404, "domain-not-found", id="domain"),
        pytest.param(BranchNotFound, NotFound, 404, "branch-not-found", id="branch"),
        pytest.param(RevisionNotFound, NotFound, 404, "revision-not-found", id="revision"),
        pytest.param(KindNotFound, NotFound, 404, "kind-not-found", id="kind"),
        pytest.param(RelationNotFound, NotFound, 404, "relation-not-found", id="relation"),
        pytest.param(RecordNotFound, NotFound, 404, "record-not-found", id="record"),
        pytest.param(Conflict, LorebaseError, 409, "conflict", id="conflict"),
        pytest.param(AlreadyExists, Conflict, 409, "already-exists", id="already-exists"),
        pytest.param(StaleHead, Conflict, 409, "stale-head", id="stale-head"),
        pytest.param(ImportOverwrites, Conflict, 409, "import-overwrites", id="import-overwrites"),
        pytest.param(AmbiguousRevision, Conflict, 409, "ambiguous-revision", id="ambiguous"),
    ],
)
def test_hierarchy(
    error: type[LorebaseError], parent: type[Exception], status: int, code: str
) -> None:
    assert issubclass(error, parent)
    assert (error.status, error.code) == (status, code)


def test_problem_document() -> None:
    error = KindNotFound("Kind 'X' does not exist", kind="X")
    assert str(error) == "Kind 'X' does not exist"
    assert error.to_problem() == {
        "type": "https://lorebase.dev/problems/kind-not-found",
        "title": "Unknown Kind",
        "status": 404,
        "detail": "Kind 'X' does not exist",
        "code": "kind-not-found",
        "kind": "X",
    }


def test_invalid_input_sorts_and_deduplicates_issues() -> None:
    issues = [
        Issue("b", "second"),
        Issue("a", "first"),
        Issue("b", "second"),
        Issue("a", "again", "x"),
    ]
    error = ValuesInvalid("2 problems", issues)
    assert error.issues == [Issue("a", "first"), Issue("a", "again", "x"), Issue("b", "second")]
    assert str(error) == "2 problems\n  a: first\n  a: again\n  b: second"
    problem = error.to_problem()
    assert problem["status"] == 422
    assert problem["issues"] == [issue.to_json() for issue in error.issues]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("Supplier", "'Supplier'", id="short-text"),
        pytest.param("a" * QUOTED_CHARS, repr("a" * QUOTED_CHARS), id="at-the-bound"),
        pytest.param("a" * 100_000, f"'{'a' * QUOTED_CHARS}…' (100000 characters)", id="long-text"),
        pytest.param("it's" * 40, '"' + "it's" * 20 + '…" (160 characters)', id="other-quotes"),
        pytest.param(12, "12", id="number"),
        pytest.param([1] * 20_000, f"[{'1, ' * 26}1… (20000 items)", id="long-list"),
    ],
)
def test_quoted_shortens_caller_text_and_gives_its_length(value: object, expected: str) -> None:
    assert quoted(value) == expected


def test_quoted_keeps_escapes_whole_and_bounds_them() -> None:
    shown = quoted("\x00" * 1000, limit=3)
    assert shown == "'\\x00\\x00\\x00…' (1000 characters)"


def test_shortened_cuts_without_quotes() -> None:
    assert shortened("where") == "where"
    assert shortened("a" * 100, limit=3) == "aaa…"


def test_capped_lists_the_first_issues_and_counts_the_rest() -> None:
    issues = [Issue(f"select[{index}]", "unknown") for index in range(MAX_ISSUES + 7)]
    assert capped(issues[:MAX_ISSUES]) == issues[:MAX_ISSUES]
    shown = capped(issues)
    assert shown[:MAX_ISSUES] == issues[:MAX_ISSUES]
    assert shown[-1] == Issue(
        "", "7 more issue(s) left out: fix the ones listed and send again", "more-issues"
    )


def test_a_problem_document_caps_issues_and_the_error_keeps_them_all() -> None:
    issues = [Issue(f"refs[{index:05}]", "bad") for index in range(20_000)]
    error = InvalidInput("20000 problems", issues)
    assert len(error.issues) == 20_000
    listed = error.to_problem()["issues"]
    assert len(listed) == MAX_ISSUES + 1
    assert listed[-1]["code"] == "more-issues"
