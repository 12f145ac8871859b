"""Who sees what of the agent trace (docs/trace.md, "Who sees what").

A principal sees its own steps and notes in full (its calls in a Domain only while it holds a
grant there; its notes always). Another principal's steps in a Domain show to a reader holding `trace.read` there through
a *Domain-wide* grant (on that Domain or `*`, branch `*`, not narrowed to Kinds): a grant limited
to some branches or Kinds reads part of the Domain, and a trace step can name any of it. Of such
a step the reader gets:

- the refs of the Kinds it may read in the Domain (its data.read grants, as a read scope has it);
- the query, the search corrections and a note's text, which are what the other principal typed
  and may hold values, only with Domain-wide data.read and every sensitivity clearance; without
  them the step keeps its counts and refs and says `"withheld": true`;
- the query plans (`explain`) only when it holds trace.explain in the Domain too.

Steps outside a Domain and notes without one of other principals show to installation
administrators only: principals with the admin role on Domain `*`, branch `*`, not narrowed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

from lorebase_core.access import SENSITIVITY_TAGS
from lorebase_core.errors import Forbidden
from lorebase_keeper.auth.authz import ROLES, Principal
from lorebase_store import GrantInfo, SessionVisibility

EVERY_DOMAIN = "*"
TYPED_PERMISSIONS = frozenset({"data.read", *(f"{tag}.read" for tag in SENSITIVITY_TAGS)})
"""What a reader needs, Domain-wide, to see what another principal typed."""


def _granted(grant: GrantInfo) -> frozenset[str]:
    return ROLES.get(grant.role, frozenset()) | {f"{tag}.read" for tag in grant.clearances}


def _domain_wide(grant: GrantInfo) -> bool:
    return grant.branch == "*" and grant.kinds is None


def domain_wide_grants(principal: Principal, domain: str) -> list[GrantInfo]:
    """The grants of `principal` covering every branch and Kind of `domain`."""
    return [grant for grant in principal.matching(domain, None) if _domain_wide(grant)]


def domain_wide_permissions(principal: Principal, domain: str) -> frozenset[str]:
    """What `principal` may do everywhere in `domain`: its Domain-wide grants' permissions.

    Reading other principals' steps and the Domain's audit log needs these: a step or an audit
    entry can name any branch and any Kind of the Domain.
    """
    wide: set[str] = set()
    for grant in domain_wide_grants(principal, domain):
        wide |= _granted(grant)
    return frozenset(wide)


def require_domain_wide(principal: Principal, domain: str, permission: str, why: str) -> None:
    """403 unless `principal` holds `permission` through a Domain-wide grant of `domain`.

    `why` says what needs the whole Domain (the audit log, webhooks), for the problem's detail.
    """
    principal.require(permission, domain, None)
    if permission not in domain_wide_permissions(principal, domain):
        raise Forbidden(
            f"{principal.id!r} administers only part of Domain {domain!r}; {why}, so it needs "
            f"{permission} on every branch and Kind (an admin grant on branch '*' with no Kinds)",
            permission=permission,
        )


def is_installation_admin(principal: Principal) -> bool:
    """The admin role on Domain `*`, branch `*`, every Kind: the installation's administrators."""
    return any(
        grant.domain == EVERY_DOMAIN and _domain_wide(grant) and grant.role == "admin"
        for grant in principal.grants
    )


def readable_kinds(principal: Principal, domain: str) -> frozenset[str] | None:
    """The Kinds `principal` reads on some branch of `domain` (None: every Kind)."""
    kinds: set[str] = set()
    for grant in principal.matching(domain, None):
        if "data.read" not in ROLES.get(grant.role, frozenset()):
            continue
        if grant.kinds is None:
            return None
        kinds.update(grant.kinds)
    return frozenset(kinds)


@dataclass(frozen=True)
class DomainSight:
    """What a reader sees of other principals' steps in one Domain."""

    steps: bool
    """trace.read through a Domain-wide grant: the steps show at all."""
    typed: bool
    """Domain-wide data.read and every clearance: query, corrections and note text show."""
    explain: bool
    """trace.explain in the Domain: query plans show."""
    kinds: frozenset[str] | None
    """The Kinds whose refs show (None: every Kind)."""

    @classmethod
    def of(cls, reader: Principal, domain: str) -> DomainSight:
        wide = domain_wide_permissions(reader, domain)
        return cls(
            steps="trace.read" in wide,
            typed=wide >= TYPED_PERMISSIONS,
            explain="trace.explain" in reader.permissions(domain, None),
            kinds=readable_kinds(reader, domain),
        )


def _ref_kind(end: object) -> str | None:
    """The Kind of a ref's end: `"Supplier/S-1001"` or `{"kind": ..., "key": ...}`."""
    if isinstance(end, dict):
        kind = end.get("kind")
        return kind if isinstance(kind, str) else None
    if isinstance(end, str) and "/" in end:
        return end.split("/", 1)[0]
    return None


def _ref_readable(ref: object, kinds: frozenset[str]) -> bool:
    if not isinstance(ref, dict):
        return False
    if "kind" in ref:
        return ref["kind"] in kinds
    ends = [_ref_kind(ref.get("from")), _ref_kind(ref.get("to"))]
    return all(kind is not None and kind in kinds for kind in ends)


def filter_refs(refs: list[object] | None, kinds: frozenset[str] | None) -> list[object] | None:
    """The refs naming Kinds in `kinds` only (a Link: both its ends); None keeps every ref."""
    if refs is None or kinds is None:
        return refs
    return [ref for ref in refs if _ref_readable(ref, kinds)]


class TraceSight:
    """What one reader sees of the trace of one principal (the session's owner)."""

    def __init__(self, reader: Principal, owner: str) -> None:
        self.reader = reader
        self.owner = owner
        self.own = reader.id == owner
        self.installation_admin = is_installation_admin(reader)
        self._sights: dict[str, DomainSight] = {}

    def domain(self, domain: str) -> DomainSight:
        found = self._sights.get(domain)
        if found is None:
            found = self._sights[domain] = DomainSight.of(self.reader, domain)
        return found

    def shows_domain(self, domain: str | None) -> bool:
        """Whether the steps of the session in `domain` (None: outside a Domain) show at all."""
        if domain is None:
            return self.own or self.installation_admin
        if self.own:
            return bool(self.reader.matching(domain, None))
        return self.domain(domain).steps

    def step(self, step: Mapping[str, object]) -> dict[str, object] | None:
        """`step` (StoredStep.to_json()) as the reader sees it, with `withheld`; None: hidden."""
        named = step.get("domain_id")
        domain = named if isinstance(named, str) else None
        own_note = self.own and step.get("type") == "note"
        if not own_note and not self.shows_domain(domain):
            return None
        shown = {**step, "withheld": False}
        if self.own or domain is None:
            return shown  # outside a Domain only installation administrators get this far
        sight = self.domain(domain)
        refs = step.get("refs")
        shown["refs"] = filter_refs(refs if isinstance(refs, list) else None, sight.kinds)
        if not sight.explain:
            shown["explain"] = None
        if not sight.typed:
            shown["withheld"] = True
            shown["query"] = None
            shown["note"] = None
            result = step.get("result")
            if isinstance(result, dict) and "corrections" in result:
                shown["result"] = {
                    name: value for name, value in result.items() if name != "corrections"
                }
        return shown

    def steps(self, steps: Iterable[Mapping[str, object]]) -> list[dict[str, object]]:
        return [shown for step in steps if (shown := self.step(step)) is not None]


def session_visibility(
    reader: Principal, domains: Callable[[], Iterable[str]]
) -> SessionVisibility:
    """What `reader` may list of the sessions (`Store.trace_sessions`): its own, other
    principals' in the Domains it reads the trace of, and theirs outside a Domain when it is an
    installation administrator. `domains` names the installation's Domains, asked only when a
    grant of the reader names a pattern of them."""
    reading = [
        grant for grant in reader.grants if _domain_wide(grant) and "trace.read" in _granted(grant)
    ]
    others_in: frozenset[str] | None
    if any(grant.domain == EVERY_DOMAIN for grant in reading):
        others_in = None
    elif not reading:
        others_in = frozenset()
    else:
        others_in = frozenset(
            domain
            for domain in domains()
            if any(fnmatchcase(domain, grant.domain) for grant in reading)
        )
    return SessionVisibility(
        own=reader.id, others_in=others_in, others_outside=is_installation_admin(reader)
    )
