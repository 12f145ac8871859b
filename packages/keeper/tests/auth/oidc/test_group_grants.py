"""The grants an OIDC groups claim gives."""

from __future__ import annotations

from lorebase_keeper.auth.oidc.group_grants import group_grants
from lorebase_platform.settings import OidcGrantSettings, OidcSettings

SETTINGS = OidcSettings(
    groups_claim="groups",
    groups={
        "supply-reviewers": [OidcGrantSettings(domain="supply", role="reviewer")],
        "readers": [
            OidcGrantSettings(domain="supply", branch="main", role="viewer", kinds=["Part"])
        ],
    },
)


def test_each_listed_group_gives_its_grants_and_unknown_groups_give_none() -> None:
    grants = group_grants(SETTINGS, "alice", {"groups": ["readers", "supply-reviewers", "x"]})
    assert [(g.domain, g.branch, g.role, g.kinds) for g in grants] == [
        ("supply", "main", "viewer", ("Part",)),
        ("supply", "*", "reviewer", None),
    ]
    assert {g.principal for g in grants} == {"alice"}


def test_a_string_claim_is_one_group_and_other_shapes_give_nothing() -> None:
    assert len(group_grants(SETTINGS, "a", {"groups": "readers"})) == 1
    assert group_grants(SETTINGS, "a", {"groups": {"readers": True}}) == ()
    assert group_grants(SETTINGS, "a", {"groups": [1, None]}) == ()
    assert group_grants(SETTINGS, "a", {}) == ()
    assert group_grants(OidcSettings(), "a", {"groups": ["readers"]}) == ()
