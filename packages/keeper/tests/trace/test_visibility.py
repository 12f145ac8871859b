"""Who sees what of the agent trace, rule by rule, on principals built from grants.

routes/test_trace.py runs the matrix through HTTP; these cases cover the grant shapes it does
not: globs, grants limited to a branch, Link refs, and what the sessions list is given.
"""

from __future__ import annotations

from typing import Any

from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.trace.visibility import (
    TraceSight,
    filter_refs,
    is_installation_admin,
    session_visibility,
)
from lorebase_store import GrantInfo


def principal(name: str, *grants: tuple[str, str, str, list[str] | None]) -> Principal:
    infos = tuple(
        GrantInfo(
            id=number,
            principal=name,
            domain=domain,
            branch=branch,
            role=role,
            kinds=kinds,
            clearances=(),
            created_at="",
        )
        for number, (domain, branch, role, kinds) in enumerate(grants, start=1)
    )
    return Principal(name, "user", infos, "api_key")


STEP: dict[str, Any] = {
    "step": 1,
    "type": "call",
    "domain_id": "supply",
    "query": {"body": {"q": "kavsen"}},
    "result": {"counts": {"hits": 1}, "corrections": ["kavsen"]},
    "refs": [{"kind": "Supplier", "key": "S-1001"}],
    "explain": [{"node": "SCAN"}],
    "note": None,
}


def never_asked() -> list[str]:
    raise AssertionError("the Domains are asked only for a grant naming a pattern")


def test_a_grant_limited_to_a_branch_does_not_read_the_trace() -> None:
    branch_admin = principal("usr_b", ("supply", "main", "admin", None))
    assert TraceSight(branch_admin, "svc_agent").step(STEP) is None
    kinds_admin = principal("usr_k", ("supply", "*", "admin", ["Supplier"]))
    assert TraceSight(kinds_admin, "svc_agent").step(STEP) is None


def test_a_glob_grant_reads_the_domains_it_matches() -> None:
    glob_admin = principal("usr_g", ("sup*", "*", "admin", None))
    shown = TraceSight(glob_admin, "svc_agent").step(STEP)
    assert shown is not None
    assert shown["query"] == STEP["query"]
    assert shown["withheld"] is False
    assert TraceSight(glob_admin, "svc_agent").step({**STEP, "domain_id": "hr"}) is None
    visibility = session_visibility(glob_admin, lambda: ["hr", "supply", "supplies"])
    assert visibility.others_in == frozenset({"supply", "supplies"})
    assert visibility.others_outside is False


def test_what_the_sessions_list_is_given() -> None:
    viewer = principal("usr_v", ("supply", "*", "viewer", None))
    assert session_visibility(viewer, never_asked).others_in == frozenset()
    root = principal("usr_root", ("*", "*", "admin", None))
    assert is_installation_admin(root)
    visibility = session_visibility(root, never_asked)
    assert (visibility.own, visibility.others_in, visibility.others_outside) == (
        "usr_root",
        None,
        True,
    )
    # admin of every Domain on one branch only: not an installation administrator
    assert not is_installation_admin(principal("usr_m", ("*", "main", "admin", None)))


def test_link_refs_show_when_both_ends_do() -> None:
    refs = [
        {"kind": "Supplier", "key": "S-1001"},
        {"kind": "Part", "key": "P-10028"},
        {"relation": "supplied_by", "from": "Part/P-10028", "to": "Supplier/S-1001"},
        {"relation": "flags", "from": "RiskFlag/RF-1", "to": "Supplier/S-1001"},
        {"relation": "flags", "from": {"kind": "Supplier", "key": "S-1"}, "to": "Supplier/S-2"},
        {"relation": "odd", "from": "no-kind", "to": "Supplier/S-2"},
    ]
    kept = filter_refs(refs, frozenset({"Supplier", "Part"}))
    assert kept == [*refs[:3], refs[4]]
    assert filter_refs(refs, None) == refs
    assert filter_refs(None, frozenset()) is None


def test_the_owner_keeps_everything_and_others_never_see_steps_outside_a_domain() -> None:
    owner = principal("svc_agent", ("supply", "*", "viewer", None))
    shown = TraceSight(owner, "svc_agent").step(STEP)
    assert shown == {**STEP, "withheld": False}
    outside = {**STEP, "domain_id": None}
    assert TraceSight(owner, "svc_agent").step(outside) == {**outside, "withheld": False}
    assert TraceSight(principal("usr_a", ("supply", "*", "admin", None)), "x").step(outside) is None
