"""`summarise_imports`: the creations of one import Revision as one entry of recent changes."""

from __future__ import annotations

from typing import Literal

from lorebase_core.context import ImportedRecords, RecentChange, summarise_imports


def change(
    ref: str,
    revision: str,
    kind: Literal["created", "modified", "deleted"] = "created",
    origin: str = "import",
) -> RecentChange:
    return RecentChange(
        revision=revision,
        at="2026-10-01T08:00:03Z",
        ref=ref,
        change=kind,
        attributes=("name",),
        actor="usr_loader",
        origin=origin,
        message="Import",
    )


def test_creations_of_one_import_are_one_entry_in_the_place_of_the_first() -> None:
    edit = change("Book/B-0004", "r2", "modified", "operation")
    first, second = change("Book/B-0004", "r1"), change("Author/A-002", "r1")
    assert summarise_imports([edit, first, second]) == (
        edit,
        ImportedRecords(
            revision="r1",
            at=first.at,
            records=2,
            actor="usr_loader",
            origin="import",
            message="Import",
        ),
    )


def test_a_lone_creation_and_other_origins_keep_their_line() -> None:
    lone = change("Supplier/S-1007", "r1")
    api = [change("Part/P-1", "r2", origin="api"), change("Part/P-2", "r2", origin="api")]
    modified = [change("Part/P-3", "r3", "modified"), change("Part/P-4", "r3", "modified")]
    listed = [*api, *modified, lone]
    assert summarise_imports(listed) == tuple(listed)
