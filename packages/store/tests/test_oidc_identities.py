"""OIDC identities: (issuer, subject) bound to one principal, no takeover by a colliding claim."""

from __future__ import annotations

import pytest

from lorebase_core.errors import AlreadyExists, PrincipalNotFound
from lorebase_store import Store

ISSUER = "https://id.example"


def test_the_first_sign_in_makes_the_principal_and_later_ones_find_it(store: Store) -> None:
    first = store.bind_oidc_identity(
        issuer=ISSUER, subject="s-1", principal_id="ana", display_name="Ana"
    )
    assert first.created
    assert first.conflict is None
    assert first.principal is not None
    assert first.principal.display_name == "Ana"
    assert store.grants("ana") == []
    # the binding names the principal, whatever the claim says now
    later = store.bind_oidc_identity(issuer=ISSUER, subject="s-1", principal_id="renamed")
    assert later.principal is not None
    assert later.principal.id == "ana"
    assert not later.created
    assert [(i.issuer, i.subject, i.principal_id) for i in store.oidc_identities()] == [
        (ISSUER, "s-1", "ana")
    ]


def test_a_colliding_claim_takes_over_nobody(store: Store) -> None:
    store.bind_oidc_identity(issuer=ISSUER, subject="s-1", principal_id="ana")
    other = store.bind_oidc_identity(issuer=ISSUER, subject="s-2", principal_id="ana")
    assert (other.principal, other.conflict) == (None, "bound-elsewhere")
    store.ensure_principal("usr_keyed")
    store.create_key("usr_keyed")
    keyed = store.bind_oidc_identity(issuer=ISSUER, subject="s-3", principal_id="usr_keyed")
    assert (keyed.principal, keyed.conflict) == (None, "has-api-keys")
    assert len(store.oidc_identities()) == 1


def test_an_administrator_links_and_unlinks_an_identity(store: Store) -> None:
    store.ensure_principal("usr_keyed")
    store.create_key("usr_keyed")
    store.link_oidc_identity("usr_keyed", issuer=ISSUER, subject="s-3")
    found = store.bind_oidc_identity(issuer=ISSUER, subject="s-3", principal_id="usr_keyed")
    assert found.principal is not None
    assert found.principal.id == "usr_keyed"
    with pytest.raises(AlreadyExists, match="bound to subject 's-3'"):
        store.link_oidc_identity("usr_keyed", issuer=ISSUER, subject="s-4")
    with pytest.raises(PrincipalNotFound):
        store.link_oidc_identity("nobody", issuer=ISSUER, subject="s-5")
    removed = store.unlink_oidc_identity("usr_keyed")
    assert removed is not None
    assert removed.subject == "s-3"
    assert store.unlink_oidc_identity("usr_keyed") is None
    assert store.oidc_identities() == []
