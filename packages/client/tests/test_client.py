"""`LorebaseClient` against a real Keeper on loopback: one test per route, and what they share."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

import pytest

from lorebase_client import Answer, LorebaseClient, Text

if TYPE_CHECKING:
    from conftest import LiveKeeper


def _unique(prefix: str) -> str:
    """A name no other test uses, so tests that create branches run in any order."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_whoami_names_the_principal_and_its_grants(
    admin: LorebaseClient, viewer: LorebaseClient
) -> None:
    me = admin.whoami()
    assert me["principal"] == "usr_admin"
    assert me["authenticated_by"] == "api_key"
    assert {grant["domain"] for grant in me["grants"]} == {"notes", "supply"}
    narrowed = viewer.whoami()
    assert narrowed["grants"][0]["kinds"] == ["Supplier"]


def test_domains_lists_what_the_caller_may_read(
    admin: LorebaseClient, viewer: LorebaseClient
) -> None:
    assert [domain["name"] for domain in admin.domains()["domains"]] == ["notes", "supply"]
    assert [domain["name"] for domain in viewer.domains()["domains"]] == ["supply"]


def test_every_read_names_its_revision_in_body_and_header(
    admin: LorebaseClient, keeper: LiveKeeper
) -> None:
    answer = admin.schema("supply")
    assert isinstance(answer, Answer)
    assert answer["revision"] == answer.revision == keeper.supply_head
    assert answer.status_code == 200
    assert answer.etag is not None
    assert answer.etag.startswith(f'"{keeper.supply_head}.')
    assert not answer.not_modified


def test_schema_holds_only_what_the_caller_may_read(
    admin: LorebaseClient, viewer: LorebaseClient
) -> None:
    kinds = [kind["name"] for kind in admin.schema("supply")["kinds"]]
    assert {"Supplier", "Part", "PurchaseOrder", "Contract", "Plant", "RiskFlag"} <= set(kinds)
    assert [kind["name"] for kind in viewer.schema("supply")["kinds"]] == ["Supplier"]


def test_schema_compact_markdown_and_kinds(admin: LorebaseClient) -> None:
    compact = admin.schema("supply", format="compact", kinds=["Part", "Supplier"])
    assert [kind["name"] for kind in compact["kinds"]] == ["Part", "Supplier"]
    assert [relation["name"] for relation in compact["relations"]] == ["supplied_by"]
    text = admin.schema("supply", format="markdown")
    assert isinstance(text, Text)
    assert str(text).index("## Relations") < str(text).index("## Kinds")
    again = admin.schema("supply", format="compact", kinds=["Part", "Supplier"], etag=compact.etag)
    assert again.not_modified


def test_schema_at_a_tag(admin: LorebaseClient, keeper: LiveKeeper) -> None:
    answer = admin.schema("supply", at="import/2026-10-01")
    assert answer.revision == keeper.supply_import


def test_records_are_paged_in_key_order(admin: LorebaseClient) -> None:
    first = admin.records("supply", "Supplier", limit=2)
    assert [record["key"] for record in first["records"]] == ["S-1001", "S-1002"]
    assert first["next_cursor"] is not None
    second = admin.records("supply", "Supplier", limit=2, cursor=first["next_cursor"])
    assert [record["key"] for record in second["records"]] == ["S-1003", "S-1004"]


def test_iter_records_follows_next_cursor(admin: LorebaseClient) -> None:
    keys = [record["key"] for record in admin.iter_records("supply", "Supplier", page_size=7)]
    assert len(keys) == 30
    assert keys == sorted(set(keys))
    whole = admin.records("supply", "Supplier", limit=1000)
    assert keys == [record["key"] for record in whole["records"]]


def test_a_record_with_link_counts_and_lineage(admin: LorebaseClient) -> None:
    supplier = admin.record("supply", "Supplier", "S-1001", links=True, lineage=True)
    assert supplier["title"] == "Kavsen Alloys Sp. z o.o."
    assert supplier["values"]["city"] == "Poznan"
    assert supplier["values"]["risk_score"] == "90"
    assert supplier["links"]["supplies"] == 4
    assert supplier["lineage"]["risk_score"]["message"] == "Raise the risk of S-1001"
    plain = admin.record("supply", "Supplier", "S-1001")
    assert "links" not in plain
    assert "lineage" not in plain


def test_a_record_at_an_earlier_revision(admin: LorebaseClient, keeper: LiveKeeper) -> None:
    before = admin.record("supply", "Supplier", "S-1001", at=keeper.supply_import)
    assert before["values"]["risk_score"] == "72"
    assert before.revision == keeper.supply_import


def test_links_by_inverse_name_and_their_pages(admin: LorebaseClient) -> None:
    answer = admin.links("supply", "Supplier", "S-1001", "supplies")
    assert answer["direction"] == "inverse"
    assert answer["target_kind"] == "Part"
    ends = [link["from"] for link in answer["links"]]
    assert ends == ["Part/P-10006", "Part/P-10026", "Part/P-10028", "Part/P-10039"]
    walked = list(admin.iter_links("supply", "Supplier", "S-1001", "supplies", page_size=1))
    assert walked == answer["links"]


def test_history_newest_first_and_its_pages(admin: LorebaseClient) -> None:
    answer = admin.history("supply", "Contract", "C-3013")
    changes = answer["changes"]
    assert len(changes) >= 3
    assert changes[-1]["change"] == "created"
    assert [change["at"] for change in changes] == sorted(
        (change["at"] for change in changes), reverse=True
    )
    assert list(admin.iter_history("supply", "Contract", "C-3013", page_size=1)) == changes


def test_history_with_values(admin: LorebaseClient) -> None:
    changes = admin.history("supply", "Supplier", "S-1001", values=True)["changes"]
    raised = changes[0]
    assert raised["message"] == "Raise the risk of S-1001"
    assert (raised["before"]["risk_score"], raised["after"]["risk_score"]) == ("72", "90")


def test_history_narrowed_to_attributes(admin: LorebaseClient) -> None:
    answer = admin.history("supply", "Supplier", "S-1001", values=True, attributes=["risk_score"])
    raised, created = answer["changes"]
    assert (raised["before"], raised["after"]) == ({"risk_score": "72"}, {"risk_score": "90"})
    assert created["change"] == "created"
    walked = admin.iter_history("supply", "Contract", "C-3013", attributes=["status"], page_size=1)
    assert [change["attributes"] for change in walked] == [["status"], ["status"]]


def test_lineage_says_where_each_value_came_from(admin: LorebaseClient) -> None:
    answer = admin.lineage("supply", "Supplier", "S-1001")
    risk = answer["attributes"]["risk_score"]
    assert risk["origin"] == {"type": "operation", "ref": "update_supplier"}
    assert answer["attributes"]["city"]["origin"]["type"] == "import"
    assert answer["changes"] == 2


def test_explain_as_json_and_as_markdown(admin: LorebaseClient) -> None:
    document = admin.explain("supply", "Supplier", "S-1001")
    assert isinstance(document, Answer)
    assert document["revision"] == document.revision
    text = admin.explain("supply", "Supplier", "S-1001", format="markdown")
    assert isinstance(text, Text)
    assert text.startswith("# Explain: Supplier/S-1001: Kavsen Alloys Sp. z o.o.\n")
    assert text.revision == document.revision
    assert text.etag is not None
    assert text.etag != document.etag


def test_diff_between_two_revisions(admin: LorebaseClient, keeper: LiveKeeper) -> None:
    answer = admin.diff("supply", keeper.supply_import, "v1")
    assert (answer["from"], answer["to"]) == (keeper.supply_import, keeper.supply_head)
    by_ref = {entry["ref"]: entry for entry in answer["records"]}
    assert by_ref["Supplier/S-1001"]["attributes"] == ["risk_score"]
    assert "Contract/C-3013" in by_ref


def test_branches_create_and_show(admin: LorebaseClient, keeper: LiveKeeper) -> None:
    name = _unique("client/feature")
    created = admin.create_branch("supply", name, at=keeper.supply_import, mode="copy")
    assert created.status_code == 201
    assert (created["name"], created["mode"], created["head"]) == (
        name,
        "copy",
        keeper.supply_import,
    )
    shown = admin.branch("supply", name)
    assert shown["head"] == keeper.supply_import
    assert shown.revision == keeper.supply_import
    assert name in [branch["name"] for branch in admin.branches("supply")["branches"]]
    old = admin.record("supply", "Supplier", "S-1001", branch=name)
    assert old["values"]["risk_score"] == "72"
    assert old["branch"] == name


def test_a_branch_from_another_branch_is_an_overlay_by_default(admin: LorebaseClient) -> None:
    base = admin.create_branch("supply", _unique("client-base"))
    child = admin.create_branch("supply", _unique("client-child"), from_branch=base["name"])
    assert child["mode"] == "overlay"
    assert child["base_branch"] == base["name"]


def test_tags_and_one_tag(admin: LorebaseClient, keeper: LiveKeeper) -> None:
    tags = {tag["name"]: tag["revision"] for tag in admin.tags("supply")["tags"]}
    assert tags == {"import/2026-10-01": keeper.supply_import, "v1": keeper.supply_head}
    tag = admin.tag("supply", "import/2026-10-01")
    assert tag["id"] == keeper.supply_import


def test_a_conditional_read_answers_not_modified(admin: LorebaseClient) -> None:
    answer = admin.record("supply", "Supplier", "S-1001")
    again = admin.record("supply", "Supplier", "S-1001", etag=answer.etag)
    assert again.not_modified
    assert again.status_code == 304
    assert again == {}
    assert (again.etag, again.revision) == (answer.etag, answer.revision)
    other = admin.record("supply", "Supplier", "S-1002", etag=answer.etag)
    assert not other.not_modified
    assert other["key"] == "S-1002"


def test_conditional_reads_of_every_cacheable_route(
    admin: LorebaseClient, keeper: LiveKeeper
) -> None:
    reads = [
        lambda etag: admin.schema("supply", etag=etag),
        lambda etag: admin.records("supply", "Part", limit=3, etag=etag),
        lambda etag: admin.links("supply", "Part", "P-10028", "supplied_by", etag=etag),
        lambda etag: admin.history("supply", "Supplier", "S-1001", etag=etag),
        lambda etag: admin.lineage("supply", "Supplier", "S-1001", etag=etag),
        lambda etag: admin.explain("supply", "Supplier", "S-1001", format="markdown", etag=etag),
        lambda etag: admin.diff("supply", keeper.supply_import, "v1", etag=etag),
    ]
    for read in reads:
        first = read(None)
        assert first.etag is not None
        assert read(first.etag).not_modified


@pytest.mark.parametrize(
    "awkward",
    ["space", "unicode", "percent", "query", "plus-and-amp", "dots", "slash"],
)
def test_keys_are_percent_encoded(admin: LorebaseClient, keeper: LiveKeeper, awkward: str) -> None:
    key = keeper.note_keys[awkward]
    note = admin.record("notes", "Note", key)
    assert note["key"] == key
    assert note["ref"] == f"Note/{key}"
    assert admin.history("notes", "Note", key)["changes"][0]["change"] == "created"
    assert admin.explain("notes", "Note", key, format="markdown").startswith(
        f"# Explain: Note/{key}"
    )


def test_a_branch_name_with_a_slash(admin: LorebaseClient) -> None:
    name = _unique("feature/usr_admin/task")
    admin.create_branch("supply", name)
    assert admin.branch("supply", name)["name"] == name
    assert admin.schema("supply", branch=name)["branch"] == name


def test_the_base_url_and_key_come_from_the_environment(
    keeper: LiveKeeper, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOREBASE_URL", keeper.url)
    monkeypatch.setenv("LOREBASE_API_KEY", keeper.viewer_key)
    with LorebaseClient() as client:
        assert client.base_url == keeper.url
        assert client.whoami()["principal"] == "usr_viewer"


def test_the_default_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOREBASE_URL", raising=False)
    with LorebaseClient() as client:
        assert client.base_url == "http://127.0.0.1:8080"
        assert repr(client) == "LorebaseClient('http://127.0.0.1:8080')"


def test_changes_asks_the_polling_feed(admin: LorebaseClient, keeper: LiveKeeper) -> None:
    answer = admin.changes(
        "supply", "main", since=keeper.supply_import, kinds=["Supplier", "Part"], limit=10
    )
    assert answer["branch"] == "main"
    assert answer["events"]
    assert {event["type"] for event in answer["events"]} == {"revision.committed"}
    assert answer.revision == keeper.supply_head
