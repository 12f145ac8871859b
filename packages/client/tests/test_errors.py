"""Problem documents become the typed errors of lorebase_core, with the response attached."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx
import pytest

from lorebase_client import (
    AsyncLorebaseClient,
    LorebaseClient,
    UnexpectedAnswer,
    error_from_response,
    problem_of,
    response_of,
)
from lorebase_client.errors import classes_by_code
from lorebase_core import errors as core_errors
from lorebase_core.errors import (
    AlreadyExists,
    BadCursor,
    Conflict,
    Forbidden,
    HistoryForbidden,
    InvalidInput,
    Issue,
    KindNotFound,
    LorebaseError,
    NotFound,
    RecordNotFound,
    RelationNotFound,
    RevisionNotFound,
    TagNotFound,
    Unauthorized,
)

if TYPE_CHECKING:
    from conftest import LiveKeeper, ProblemCheck

REQUEST = httpx.Request("GET", "http://keeper.test/api/v1/domains/supply/schema")


def _problem_response(status: int, **members: Any) -> httpx.Response:
    document = {
        "type": "https://lorebase.dev/problems/x",
        "title": "A title",
        "status": status,
        "detail": "what went wrong",
        **members,
    }
    headers = {"content-type": "application/problem+json"}
    return httpx.Response(status, json=document, headers=headers, request=REQUEST)


def _core_classes() -> list[Any]:
    return [
        pytest.param(cls, id=code)
        for code, cls in sorted(classes_by_code().items())
        if cls.__module__ == core_errors.__name__
    ]


@pytest.mark.parametrize("cls", _core_classes())
def test_every_class_of_core_comes_back_from_its_problem_document(
    cls: type[LorebaseError],
) -> None:
    error = (
        cls("detail", [Issue("a.b", "bad", "invalid")])
        if issubclass(cls, InvalidInput)
        else cls("detail")
    )
    response = httpx.Response(cls.status, json=error.to_problem(), request=REQUEST)
    raised = error_from_response(response)
    assert type(raised) is cls
    assert raised.detail == "detail"
    assert response_of(raised) is response
    if isinstance(raised, InvalidInput):
        assert raised.issues == [Issue("a.b", "bad", "invalid")]


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        pytest.param(400, core_errors.BadRequest, id="400"),
        pytest.param(401, Unauthorized, id="401"),
        pytest.param(403, Forbidden, id="403"),
        pytest.param(404, NotFound, id="404"),
        pytest.param(409, Conflict, id="409"),
        pytest.param(422, InvalidInput, id="422"),
        pytest.param(418, LorebaseError, id="418"),
        pytest.param(501, LorebaseError, id="501"),
    ],
)
def test_a_code_without_a_class_falls_back_to_the_class_of_the_status(
    status: int, expected: type[LorebaseError]
) -> None:
    response = _problem_response(status, code="not-a-known-code", missing="something")
    raised = error_from_response(response)
    assert type(raised) is expected
    assert raised.extra == {"missing": "something"}
    problem = problem_of(raised)
    assert problem is not None
    assert problem["code"] == "not-a-known-code"


def test_issues_are_rebuilt_and_extra_members_kept() -> None:
    issues = [
        {"path": "query.limit", "message": "Input should be a valid integer", "code": "int"},
        {"path": "limit", "message": "0 is not between 1 and 1000", "code": "out-of-range"},
    ]
    response = _problem_response(422, code="invalid-request", issues=issues, instance="/x")
    raised = error_from_response(response)
    assert isinstance(raised, InvalidInput)
    assert raised.issues == [
        Issue("limit", "0 is not between 1 and 1000", "out-of-range"),
        Issue("query.limit", "Input should be a valid integer", "int"),
    ]
    assert raised.extra == {}
    assert raised.response is response
    assert raised.problem["instance"] == "/x"


def test_an_answer_that_is_not_a_problem_document_still_raises_by_status() -> None:
    response = httpx.Response(502, text="<html>Bad gateway</html>", request=REQUEST)
    raised = error_from_response(response)
    assert type(raised) is LorebaseError
    assert "answered 502 Bad Gateway" in raised.detail
    assert "<html>Bad gateway</html>" in raised.detail
    assert response_of(raised) is response


def test_errors_raised_before_any_request_have_no_response() -> None:
    error = KindNotFound("no request was made")
    assert response_of(error) is None
    assert problem_of(error) is None


def test_a_success_answer_that_is_not_json_is_an_unexpected_answer() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html>a web server</html>")

    transport = httpx.MockTransport(handler)
    with (
        LorebaseClient("http://keeper.test", transport=transport) as client,
        pytest.raises(UnexpectedAnswer, match="is the base URL the one of a Keeper"),
    ):
        client.whoami()


# -- against a real Keeper --------------------------------------------------------------------


def test_an_unknown_kind_is_kind_not_found(
    admin: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    with pytest.raises(KindNotFound) as caught:
        admin.records("supply", "Nope")
    assert caught.value.response.status_code == 404
    assert_problem(response_of(caught.value), 404, "kind-not-found")
    assert caught.value.detail == (
        "Kind 'Nope' does not exist in Domain 'supply'; "
        "Kinds: Contract, Part, Plant, PurchaseOrder, RiskFlag, Supplier"
    )


def test_an_unknown_record_and_relation(
    admin: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    with pytest.raises(RecordNotFound) as record:
        admin.record("supply", "Supplier", "S-9999")
    assert_problem(response_of(record.value), 404, "record-not-found")
    with pytest.raises(RelationNotFound) as relation:
        admin.links("supply", "Supplier", "S-1001", "sells")
    assert_problem(response_of(relation.value), 404, "relation-not-found")


def test_a_cursor_of_another_list_is_bad_cursor(
    admin: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    page = admin.history("supply", "Contract", "C-3013", limit=1)
    assert page["next_cursor"] is not None
    with pytest.raises(BadCursor) as caught:
        admin.records("supply", "Supplier", cursor=page["next_cursor"])
    assert_problem(response_of(caught.value), 400, "bad-cursor")


def test_no_key_is_unauthorized(
    keeper: LiveKeeper, assert_problem: ProblemCheck, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LOREBASE_API_KEY", raising=False)
    with LorebaseClient(keeper.url) as anonymous, pytest.raises(Unauthorized) as no_key:
        anonymous.schema("supply")
    document = assert_problem(response_of(no_key.value), 401, "unauthorized")
    assert "needs an API key" in str(document["detail"])
    with (
        LorebaseClient(keeper.url, api_key="lbk_000000000000_wrong") as wrong,
        pytest.raises(Unauthorized) as bad_key,
    ):
        wrong.whoami()
    assert_problem(response_of(bad_key.value), 401, "unauthorized")


def test_history_with_a_grant_narrowed_to_kinds_is_history_forbidden(
    viewer: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    with pytest.raises(HistoryForbidden) as caught:
        viewer.history("supply", "Supplier", "S-1001")
    assert caught.value.response.status_code == 403
    assert_problem(response_of(caught.value), 403, "history-forbidden")


def test_an_invisible_kind_answers_like_an_unknown_one(
    viewer: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    with pytest.raises(KindNotFound) as caught:
        viewer.record("supply", "Contract", "C-3001")
    assert_problem(response_of(caught.value), 404, "kind-not-found")


def test_a_missing_permission_is_forbidden_naming_it(
    viewer: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    with pytest.raises(Forbidden) as caught:
        viewer.create_branch("supply", "viewer-may-not")
    assert type(caught.value) is Forbidden
    assert caught.value.extra == {"permission": "branch.create"}
    assert_problem(response_of(caught.value), 403, "forbidden")


def test_a_limit_out_of_range_is_invalid_input_with_its_issue(
    admin: LorebaseClient, assert_problem: ProblemCheck
) -> None:
    with pytest.raises(InvalidInput) as caught:
        admin.records("supply", "Supplier", limit=5000)
    assert caught.value.issues == [Issue("limit", "5000 is not between 1 and 1000", "out-of-range")]
    assert_problem(response_of(caught.value), 422, "invalid-input")


def test_an_unknown_revision_and_tag(admin: LorebaseClient, assert_problem: ProblemCheck) -> None:
    with pytest.raises(RevisionNotFound) as revision:
        admin.diff("supply", "v1", "no-such-revision")
    assert_problem(response_of(revision.value), 404, "revision-not-found")
    with pytest.raises(TagNotFound) as tag:
        admin.tag("supply", "no-such-tag")
    assert_problem(response_of(tag.value), 404, "tag-not-found")


def test_a_branch_that_exists_already(admin: LorebaseClient, assert_problem: ProblemCheck) -> None:
    with pytest.raises(AlreadyExists) as caught:
        admin.create_branch("supply", "main")
    assert_problem(response_of(caught.value), 409, "already-exists")


@pytest.mark.anyio
async def test_the_async_client_raises_the_same_errors(
    async_admin: AsyncLorebaseClient,
    async_viewer: AsyncLorebaseClient,
    assert_problem: ProblemCheck,
) -> None:
    with pytest.raises(KindNotFound) as unknown:
        await async_admin.record("supply", "Nope", "x")
    assert_problem(response_of(unknown.value), 404, "kind-not-found")
    with pytest.raises(HistoryForbidden) as history:
        await async_viewer.history("supply", "Supplier", "S-1001")
    assert_problem(response_of(history.value), 403, "history-forbidden")
    with pytest.raises(BadCursor):
        await async_admin.links("supply", "Supplier", "S-1001", "supplies", cursor="nope")


@pytest.mark.anyio
async def test_the_async_client_without_a_key_is_unauthorized(
    keeper: LiveKeeper, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LOREBASE_API_KEY", raising=False)
    async with AsyncLorebaseClient(keeper.url) as anonymous:
        with pytest.raises(Unauthorized):
            await anonymous.domains()
