"""The agent trace in the store: numbering, the cap, inferred sessions, summaries, the session
list, the timeline and pruning, on both backends (docs/storage.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from lorebase_core.errors import BadCursor, BadRequest
from lorebase_core.schema import load_schema
from lorebase_core.values import format_datetime
from lorebase_store import (
    SessionVisibility,
    Store,
    TraceSession,
    TraceSessionSummary,
    TraceStep,
    TraceWritten,
)
from lorebase_store import tables as t
from lorebase_store.testing import statements_run

SUPPLY = Path(__file__).parents[3] / "examples" / "supply"
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
IDLE = 300.0
CAP = 2000
ALICE, BOB = "usr_alice", "usr_bob"


def at(seconds: float) -> str:
    return format_datetime(START + timedelta(seconds=seconds))


def step(seconds: float = 0, **fields: Any) -> TraceStep:
    values: dict[str, Any] = {
        "principal": ALICE,
        "session_id": "s-1",
        "client": "c" * 64,
        "domain": "supply",
        "at": at(seconds),
        "tool": "search",
        "method": "GET",
        "route": "/api/v1/domains/{domain}/search",
        "status": 200,
    }
    values.update(fields)
    return TraceStep(**values)


def write(store: Store, *steps: TraceStep, cap: int = CAP) -> TraceWritten:
    return store.write_trace(steps, max_steps_per_session=cap, inferred_idle_s=IDLE)


def timeline(store: Store, session_id: str, principal: str = ALICE) -> TraceSession:
    found = store.trace_session(principal, session_id)
    assert found is not None
    return found


def sessions_of(store: Store, principal: str = ALICE) -> list[str]:
    """The session ids of a principal, oldest first."""
    rows = sa.select(t.agent_trace_sessions.c.session_id, t.agent_trace_sessions.c.first_at)
    with store.engine.connect() as connection:
        found = connection.execute(rows.where(t.agent_trace_sessions.c.principal == principal))
        return [row.session_id for row in sorted(found, key=lambda row: row.first_at)]


def row_count(store: Store, table: sa.Table) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())


def everything(name: str = "supply") -> SessionVisibility:
    return SessionVisibility(own=name, others_in=None, others_outside=True)


@pytest.fixture
def traced(store: Store) -> Store:
    """A store with two Domains, `supply` and `energy`."""
    text = (SUPPLY / "schema.yaml").read_text(encoding="utf-8")
    store.create_domain(load_schema(text), created_by="usr_tester")
    store.create_domain(
        load_schema(text.replace("name: supply", "name: energy", 1)), created_by="usr_tester"
    )
    return store


# -- numbering and the cap --------------------------------------------------------------------


def test_steps_are_numbered_per_session_in_queue_order_and_seq_is_write_order(
    traced: Store,
) -> None:
    first = write(traced, step(5), step(1), step(3, session_id="s-2"), step(2))
    second = write(traced, step(4), step(0, session_id="s-2"))
    assert (first, second) == (
        TraceWritten(recorded=4, session_full=0),
        TraceWritten(recorded=2, session_full=0),
    )
    one = timeline(traced, "s-1")
    assert [(s.step, s.at) for s in one.steps] == [(1, at(5)), (2, at(1)), (3, at(2)), (4, at(4))]
    two = timeline(traced, "s-2")
    assert [(s.step, s.at) for s in two.steps] == [(1, at(3)), (2, at(0))]
    seqs = sorted((s.seq, s.at) for s in [*one.steps, *two.steps])
    assert [a for _, a in seqs] == [at(5), at(1), at(3), at(2), at(4), at(0)]
    assert (one.first_at, one.last_at, one.inferred) == (at(1), at(5), False)


def test_a_step_reads_back_with_every_field(traced: Store) -> None:
    write(
        traced,
        step(
            0,
            latency_ms=12.5,
            cache="miss",
            query={"body": {"kind": "Part"}, "params": {}},
            result={"counts": {"hits": 2}},
            refs=[{"kind": "Part", "key": "P-1"}, {"relation": "r", "from": "a", "to": "b"}],
            explain=[{"node": "SCAN"}],
            proposal_id="prp_1",
            trace_id="a" * 32,
        ),
        step(1, type="note", note="next: suppliers", note_step=1, tool=None, domain=None),
    )
    call, note = timeline(traced, "s-1").steps
    assert call.to_json() == {
        "step": 1,
        "at": at(0),
        "seq": call.seq,
        "type": "call",
        "tool": "search",
        "method": "GET",
        "route": "/api/v1/domains/{domain}/search",
        "status": 200,
        "latency_ms": 12.5,
        "cache": "miss",
        "query": {"body": {"kind": "Part"}, "params": {}},
        "result": {"counts": {"hits": 2}},
        "refs": [{"kind": "Part", "key": "P-1"}, {"relation": "r", "from": "a", "to": "b"}],
        "explain": [{"node": "SCAN"}],
        "proposal_id": "prp_1",
        "note": None,
        "note_step": None,
        "trace_id": "a" * 32,
        "domain_id": "supply",
    }
    assert (note.type, note.note, note.note_step, note.domain) == (
        "note",
        "next: suppliers",
        1,
        None,
    )


def test_the_cap_keeps_exactly_max_steps_per_session_and_counts_the_rest(traced: Store) -> None:
    assert write(traced, *(step(i) for i in range(3)), cap=5) == TraceWritten(
        recorded=3, session_full=0
    )
    assert write(
        traced, *(step(10 + i) for i in range(4)), step(0, session_id="s-2"), cap=5
    ) == TraceWritten(recorded=3, session_full=2)
    assert write(traced, step(20), cap=5) == TraceWritten(recorded=0, session_full=1)
    steps = timeline(traced, "s-1").steps
    assert [s.step for s in steps] == [1, 2, 3, 4, 5]
    assert [s.at for s in steps[3:]] == [at(10), at(11)]  # the first ones in queue order
    assert len(timeline(traced, "s-2").steps) == 1
    with traced.engine.connect() as connection:
        counts = connection.execute(sa.select(t.agent_trace_sessions.c.steps)).scalars().all()
    assert sorted(counts) == [1, 5]


def test_a_session_id_names_one_session_per_principal(traced: Store) -> None:
    write(traced, step(0), step(1, principal=BOB), step(2))
    assert [s.step for s in timeline(traced, "s-1").steps] == [1, 2]
    assert [s.step for s in timeline(traced, "s-1", BOB).steps] == [1]
    assert traced.trace_session(ALICE, "s-unknown") is None


def test_an_unknown_domain_name_is_stored_as_no_domain(traced: Store) -> None:
    write(traced, step(0, domain="gone"))
    (only,) = timeline(traced, "s-1").steps
    assert only.domain is None
    (summary,) = timeline(traced, "s-1").domains
    assert summary.domain is None


# -- inferred sessions ------------------------------------------------------------------------


def inferred(seconds: float, **fields: Any) -> TraceStep:
    return step(seconds, session_id=None, **fields)


def test_an_inferred_session_takes_steps_within_the_idle_window_both_ways(traced: Store) -> None:
    write(traced, inferred(1000))
    write(traced, inferred(1000 + IDLE))  # after the last one, at the edge
    write(traced, inferred(1000 - IDLE))  # before the first one
    write(traced, inferred(1000 - 2 * IDLE + 1))  # before the first one, which moved
    (session_id,) = sessions_of(traced)
    assert session_id.startswith("inferred-")
    assert len(session_id) == len("inferred-") + 16
    session = timeline(traced, session_id)
    assert session.inferred
    assert (session.first_at, session.last_at) == (at(1000 - 2 * IDLE + 1), at(1000 + IDLE))
    assert [s.step for s in session.steps] == [1, 2, 3, 4]
    (summary,) = session.domains
    assert (summary.first_at, summary.last_at, summary.inferred) == (
        session.first_at,
        session.last_at,
        True,
    )


def test_after_a_longer_gap_a_new_inferred_session_starts(traced: Store) -> None:
    write(traced, inferred(0))
    write(traced, inferred(IDLE + 0.5))
    write(traced, inferred(-IDLE - 0.5))
    assert len(sessions_of(traced)) == 3


def test_a_step_joins_the_nearest_of_two_inferred_sessions(traced: Store) -> None:
    write(traced, inferred(0))
    write(traced, inferred(500))
    first, second = sessions_of(traced)
    write(traced, inferred(280))  # 280 s after the first, 220 s before the second
    write(traced, inferred(120))  # 120 s after the first, 160 s before the second (now at 280)
    assert [s.at for s in timeline(traced, first).steps] == [at(0), at(120)]
    assert [s.at for s in timeline(traced, second).steps] == [at(500), at(280)]


def test_steps_of_one_batch_out_of_order_share_one_inferred_session(traced: Store) -> None:
    # each step is within the window of the one before it in time, not in the queue
    write(traced, inferred(2 * IDLE), inferred(0), inferred(IDLE))
    (session_id,) = sessions_of(traced)
    assert [s.at for s in timeline(traced, session_id).steps] == [at(2 * IDLE), at(0), at(IDLE)]


def test_steps_out_of_order_across_batches_share_one_inferred_session(traced: Store) -> None:
    write(traced, inferred(0))
    write(traced, inferred(2 * IDLE), inferred(IDLE))
    write(traced, inferred(-IDLE + 1))
    (session_id,) = sessions_of(traced)
    assert len(timeline(traced, session_id).steps) == 4


def test_inferred_sessions_are_per_principal_and_client(traced: Store) -> None:
    write(traced, inferred(0), inferred(1, principal=BOB), inferred(2, client="d" * 64))
    assert len(sessions_of(traced)) == 2
    assert len(sessions_of(traced, BOB)) == 1
    (bob,) = sessions_of(traced, BOB)
    assert bob not in sessions_of(traced)


def test_explicit_and_inferred_sessions_never_mix(traced: Store) -> None:
    write(traced, step(0), inferred(1), step(2), inferred(3))
    explicit = timeline(traced, "s-1")
    assert [s.at for s in explicit.steps] == [at(0), at(2)]
    (inferred_id,) = [s for s in sessions_of(traced) if s != "s-1"]
    assert [s.at for s in timeline(traced, inferred_id).steps] == [at(1), at(3)]
    # an explicit id that names an inferred session does not write into it
    assert write(traced, step(4, session_id=inferred_id)) == TraceWritten(
        recorded=0, session_full=1
    )
    assert len(timeline(traced, inferred_id).steps) == 2


# -- summaries --------------------------------------------------------------------------------


def test_summaries_per_session_and_domain(traced: Store) -> None:
    write(
        traced,
        step(0, tool="search"),
        step(1, tool="query", proposal_id="prp_2"),
        step(2, type="note", note="hm", tool=None),
        step(3, domain="energy", tool="context"),
        step(4, domain=None, tool=None, route="/api/v1/trace/sessions"),
        step(5, type="note", note="outside", domain=None, tool=None),
    )
    write(traced, step(6, tool="explain", proposal_id="prp_1"), step(7, proposal_id="prp_2"))
    summaries = {summary.domain: summary for summary in timeline(traced, "s-1").domains}
    assert summaries["supply"] == TraceSessionSummary(
        session_id="s-1",
        principal=ALICE,
        inferred=False,
        domain="supply",
        first_at=at(0),
        last_at=at(7),
        first_step=1,
        last_step=8,
        calls=4,
        notes=1,
        tools=["explain", "query", "search"],
        proposals=["prp_2", "prp_1"],
    )
    energy, outside = summaries["energy"], summaries[None]
    assert (energy.first_step, energy.last_step, energy.calls, energy.tools) == (
        4,
        4,
        1,
        ["context"],
    )
    assert (outside.first_step, outside.last_step, outside.calls, outside.notes) == (5, 6, 1, 1)
    assert (outside.tools, outside.proposals) == ([], [])
    assert summaries["supply"].to_json()["domain_id"] == "supply"


# -- the session list -------------------------------------------------------------------------


def listed(store: Store, visibility: SessionVisibility, **options: Any) -> list[tuple[str, ...]]:
    page = store.trace_sessions(visibility=visibility, limit=100, **options)
    assert page.next_cursor is None
    return [(s.principal, s.session_id, s.domain or "-") for s in page.sessions]


@pytest.fixture
def listing(traced: Store) -> Store:
    """Sessions of Alice and Bob in supply, energy and outside any Domain, newest last."""
    write(traced, step(0, session_id="a-1"), step(1, session_id="a-1", domain=None))
    write(traced, step(2, session_id="b-1", principal=BOB))
    write(traced, step(3, session_id="b-2", principal=BOB, domain="energy"))
    write(traced, step(4, session_id="b-3", principal=BOB, domain=None))
    write(traced, step(5, session_id="a-2", domain="energy"))
    return traced


@pytest.mark.parametrize(
    ("others_in", "others_outside", "expected"),
    [
        pytest.param(frozenset(), False, [], id="own-only"),
        pytest.param(frozenset({"supply"}), False, [("b-1", "supply")], id="others-in-supply"),
        pytest.param(
            None, False, [("b-2", "energy"), ("b-1", "supply")], id="others-in-every-domain"
        ),
        pytest.param(frozenset({"unknown"}), True, [("b-3", "-")], id="others-outside-only"),
        pytest.param(
            None,
            True,
            [("b-3", "-"), ("b-2", "energy"), ("b-1", "supply")],
            id="installation-admin",
        ),
    ],
)
def test_the_list_shows_own_summaries_and_others_by_visibility(
    listing: Store,
    others_in: frozenset[str] | None,
    others_outside: bool,
    expected: list[tuple[str, str]],
) -> None:
    visibility = SessionVisibility(own=ALICE, others_in=others_in, others_outside=others_outside)
    own = [(ALICE, "a-2", "energy"), (ALICE, "a-1", "-"), (ALICE, "a-1", "supply")]
    others = [(BOB, session_id, domain) for session_id, domain in expected]
    assert listed(listing, visibility) == sorted(
        [*own, *others], key=lambda row: -int(_last_second(listing, row))
    )


def _last_second(store: Store, row: tuple[str, ...]) -> int:
    """The position of a listed summary by its last step's time (the fixture's seconds)."""
    principal, session_id, domain = row
    (summary,) = [
        s for s in timeline(store, session_id, principal).domains if (s.domain or "-") == domain
    ]
    return int((datetime.fromisoformat(summary.last_at) - START).total_seconds())


def test_the_list_filters_by_actor_and_domain(listing: Store) -> None:
    admin = SessionVisibility(own="usr_admin", others_in=None, others_outside=True)
    assert listed(listing, admin, actor=BOB) == [
        (BOB, "b-3", "-"),
        (BOB, "b-2", "energy"),
        (BOB, "b-1", "supply"),
    ]
    assert listed(listing, admin, domain="energy") == [
        (ALICE, "a-2", "energy"),
        (BOB, "b-2", "energy"),
    ]
    assert listed(listing, admin, actor=ALICE, domain="energy") == [(ALICE, "a-2", "energy")]
    assert listed(listing, admin, domain="unknown") == []
    own = SessionVisibility(own=ALICE, others_in=frozenset(), others_outside=False)
    assert listed(listing, own, actor=BOB) == []


def test_the_list_pages_with_a_cursor_without_repeats_or_gaps(traced: Store) -> None:
    # several summaries share a last_at: the row id breaks the tie
    write(traced, *(step(i // 3, session_id=f"s-{i}") for i in range(14)))
    admin = everything()
    whole = traced.trace_sessions(visibility=admin, limit=100).sessions
    assert len(whole) == 14
    seen: list[TraceSessionSummary] = []
    cursor = None
    while True:
        page = traced.trace_sessions(visibility=admin, limit=4, cursor=cursor)
        assert len(page.sessions) <= 4
        seen.extend(page.sessions)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == whole
    assert [s.last_at for s in whole] == sorted((s.last_at for s in whole), reverse=True)


@pytest.mark.parametrize("cursor", ["nonsense", "e30", "eyJsIjoiYXVkaXQgbG9nIiwiayI6W119"])
def test_a_foreign_cursor_is_refused(traced: Store, cursor: str) -> None:
    with pytest.raises(BadCursor):
        traced.trace_sessions(visibility=everything(), limit=5, cursor=cursor)


# -- pruning ----------------------------------------------------------------------------------


def test_pruning_lowers_sessions_and_summaries_and_removes_empty_rows(traced: Store) -> None:
    write(
        traced,
        step(0, tool="query"),
        step(1, domain="energy"),
        step(2, type="note", note="n", tool=None),
        step(10, tool="search", proposal_id="prp_1"),
        step(0, session_id="old"),
        step(1, session_id="old", domain=None),
    )
    assert traced.prune_trace(at(5)) == 5
    session = timeline(traced, "s-1")
    assert [(s.step, s.at) for s in session.steps] == [(4, at(10))]
    assert (session.first_at, session.last_at) == (at(10), at(10))
    (supply,) = session.domains
    assert (supply.domain, supply.first_step, supply.last_step, supply.first_at) == (
        "supply",
        4,
        4,
        at(10),
    )
    assert (supply.calls, supply.notes, supply.tools, supply.proposals) == (
        1,
        0,
        ["search"],
        ["prp_1"],
    )
    assert traced.trace_session(ALICE, "old") is None
    assert row_count(traced, t.agent_trace_sessions) == 1
    assert row_count(traced, t.agent_trace_session_domains) == 1
    assert traced.prune_trace(at(5)) == 0
    assert traced.trace_sessions(visibility=everything(), limit=10).sessions == [supply]


def test_pruning_lowers_the_cap_count_so_new_steps_fit_again(traced: Store) -> None:
    write(traced, *(step(i) for i in range(4)), cap=4)
    assert write(traced, step(100), cap=4) == TraceWritten(recorded=0, session_full=1)
    assert traced.prune_trace(at(2)) == 2
    assert write(traced, step(101), step(102), step(103), cap=4) == TraceWritten(
        recorded=2, session_full=1
    )
    # numbers continue after the last one kept, never repeating one
    assert [s.step for s in timeline(traced, "s-1").steps] == [3, 4, 5, 6]


def test_pruning_runs_in_chunks(traced: Store) -> None:
    write(traced, *(step(i / 1000, session_id=f"s-{i % 7}") for i in range(2500)))
    assert traced.prune_trace(at(10)) == 2500
    assert row_count(traced, t.agent_trace_steps) == 0
    assert row_count(traced, t.agent_trace_sessions) == 0
    assert row_count(traced, t.agent_trace_session_domains) == 0


def test_time_stamps_within_one_second_order_as_instants(traced: Store) -> None:
    # as text, "09:00:01Z" sorts after "09:00:01.5Z": the store keeps a form that does not
    write(traced, step(1.5), step(1), step(0.25, session_id="s-2"), step(2, session_id="s-2"))
    session = timeline(traced, "s-1")
    assert (session.first_at, session.last_at) == (at(1), at(1.5))
    assert [s.at for s in session.steps] == [at(1.5), at(1)]
    listed_sessions = traced.trace_sessions(visibility=everything(), limit=10).sessions
    assert [(s.session_id, s.last_at) for s in listed_sessions] == [
        ("s-2", at(2)),
        ("s-1", at(1.5)),
    ]
    assert traced.prune_trace(at(1)) == 1
    assert [s.at for s in timeline(traced, "s-2").steps] == [at(2)]
    assert traced.prune_trace(at(1.5)) == 1
    assert [s.at for s in timeline(traced, "s-1").steps] == [at(1.5)]


def test_a_time_stamp_that_is_not_iso_8601_is_bad_input(traced: Store) -> None:
    with pytest.raises(BadRequest, match="ISO 8601"):
        write(traced, step(0, at="yesterday"))
    with pytest.raises(BadRequest, match="ISO 8601"):
        traced.prune_trace("soon")


def test_a_page_holds_at_least_one_session(traced: Store) -> None:
    with pytest.raises(BadRequest, match="limit must be at least 1"):
        traced.trace_sessions(visibility=everything(), limit=0)


def test_a_cap_of_zero_writes_nothing_and_leaves_no_session_row(traced: Store) -> None:
    assert write(traced, step(0), inferred(1), cap=0) == TraceWritten(recorded=0, session_full=2)
    assert row_count(traced, t.agent_trace_sessions) == 0


def test_the_list_reads_the_summaries_never_the_steps(listing: Store) -> None:
    with statements_run(listing) as statements:
        listing.trace_sessions(visibility=everything(), domain="supply", limit=2)
    assert any("agent_trace_session_domains" in statement for statement in statements)
    assert not any("agent_trace_steps" in statement for statement in statements)
