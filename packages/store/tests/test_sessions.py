"""Browser sessions in the store: made, found by their id, expired, touched, revoked, pruned."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from lorebase_core.errors import PrincipalNotFound
from lorebase_core.sessions import SESSION_ID, session_digest
from lorebase_platform.settings import SessionSettings
from lorebase_store import Store
from lorebase_store import tables as t
from lorebase_store.testing import age_session

SETTINGS = SessionSettings(
    idle_timeout_s=600, absolute_timeout_s=3600, touch_interval_s=60, max_per_principal=3
)


@pytest.fixture
def people(store: Store) -> Store:
    store.ensure_principal("usr_ada")
    store.ensure_principal("svc_bot", principal_type="service")
    return store


def _rows(store: Store) -> int:
    with store.engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(t.auth_sessions)).scalar()


def test_a_session_is_stored_as_a_digest_and_found_by_its_id(people: Store) -> None:
    made = people.create_session(
        "usr_ada", method="oidc", claims={"groups": ["x"]}, settings=SETTINGS
    )
    assert SESSION_ID.match(made.session_id)
    with people.engine.connect() as connection:
        stored = connection.execute(sa.select(t.auth_sessions)).one()
    assert stored.id_digest == session_digest(made.session_id)
    assert made.session_id not in str(stored._mapping.values())
    found = people.session(made.session_id, SETTINGS)
    assert found is not None
    assert (found.principal, found.principal_type, found.method) == ("usr_ada", "user", "oidc")
    assert found.claims == {"groups": ["x"]}
    assert found.expires_at == made.info.expires_at
    assert people.session("lbs_" + "A" * 43, SETTINGS) is None
    assert people.session("not a session id", SETTINGS) is None


def test_an_unknown_principal_gets_no_session(people: Store) -> None:
    with pytest.raises(PrincipalNotFound):
        people.create_session("usr_nobody", method="oidc", settings=SETTINGS)
    with pytest.raises(PrincipalNotFound):
        people.revoke_principal_sessions("usr_nobody")


def test_idle_and_absolute_expiry(people: Store) -> None:
    idle = people.create_session("usr_ada", method="oidc", settings=SETTINGS).session_id
    age_session(people, idle, last_seen_at=timedelta(seconds=601))
    assert people.session(idle, SETTINGS) is None
    old = people.create_session("usr_ada", method="oidc", settings=SETTINGS).session_id
    age_session(people, old, expires_at=timedelta(seconds=1))
    assert people.session(old, SETTINGS) is None
    fresh = people.create_session("usr_ada", method="oidc", settings=SETTINGS).session_id
    assert people.session(fresh, SETTINGS) is not None


def test_use_is_written_at_most_every_touch_interval(people: Store) -> None:
    made = people.create_session("usr_ada", method="oidc", settings=SETTINGS)
    found = people.session(made.session_id, SETTINGS)
    assert found is not None
    assert found.last_seen_at == made.info.last_seen_at
    age_session(people, made.session_id, last_seen_at=timedelta(seconds=300))
    touched = people.session(made.session_id, SETTINGS)
    assert touched is not None
    assert touched.last_seen_at > made.info.last_seen_at
    again = people.session(made.session_id, SETTINGS)
    assert again is not None
    assert again.last_seen_at == touched.last_seen_at
    assert again.idle_expires_at <= again.expires_at


def test_revoking_a_key_ends_its_sessions(people: Store) -> None:
    key = people.create_key("usr_ada")
    with_key = people.create_session(
        "usr_ada", method="api_key", key_id=key.info.id, settings=SETTINGS
    ).session_id
    other = people.create_session("usr_ada", method="oidc", settings=SETTINGS).session_id
    revoked = people.revoke_key(key.info.id)
    assert revoked.sessions_ended == 1
    assert revoked.key.revoked_at is not None
    assert people.session(with_key, SETTINGS) is None
    assert people.session(other, SETTINGS) is not None
    assert people.revoke_key(key.info.id).sessions_ended == 0


def test_a_session_of_a_revoked_key_is_dead_however_it_was_revoked(people: Store) -> None:
    key = people.create_key("usr_ada")
    session_id = people.create_session(
        "usr_ada", method="api_key", key_id=key.info.id, settings=SETTINGS
    ).session_id
    with people.engine.begin() as connection:
        connection.execute(
            t.api_keys.update().where(t.api_keys.c.id == key.info.id).values(revoked_at="x")
        )
    assert people.session(session_id, SETTINGS) is None


def test_revoking_a_principal_and_one_session(people: Store) -> None:
    first = people.create_session("usr_ada", method="oidc", settings=SETTINGS).session_id
    second = people.create_session("usr_ada", method="oidc", settings=SETTINGS).session_id
    bot = people.create_session("svc_bot", method="oidc", settings=SETTINGS).session_id
    assert people.revoke_session(first) is True
    assert people.revoke_session(first) is False
    assert people.revoke_session("garbage") is False
    assert people.revoke_principal_sessions("usr_ada") == 1
    assert people.session(second, SETTINGS) is None
    assert people.session(bot, SETTINGS) is not None


def test_past_the_limit_the_oldest_sessions_end(people: Store) -> None:
    made = [
        people.create_session("usr_ada", method="oidc", settings=SETTINGS).session_id
        for _ in range(5)
    ]
    live = [session_id for session_id in made if people.session(session_id, SETTINGS)]
    assert live == made[-3:]


def test_ended_sessions_are_pruned_at_sign_in(people: Store) -> None:
    old = people.create_session("usr_ada", method="oidc", settings=SETTINGS).session_id
    idle = people.create_session("usr_ada", method="oidc", settings=SETTINGS).session_id
    gone = people.create_session("usr_ada", method="oidc", settings=SETTINGS).session_id
    kept = people.create_session("usr_ada", method="oidc", settings=SETTINGS).session_id
    age_session(people, old, expires_at=timedelta(seconds=5))
    age_session(people, idle, last_seen_at=timedelta(seconds=601))
    people.revoke_session(gone)
    assert _rows(people) == 4
    people.create_session("svc_bot", method="oidc", settings=SETTINGS)
    assert _rows(people) == 2
    assert people.session(kept, SETTINGS) is not None
