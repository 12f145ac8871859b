"""Roles, permissions and the scope of a caller's reads (docs/auth.md).

A grant gives a principal one role on the branches of a Domain whose names match a glob
(`main`, `agent/*`, `*`), maybe narrowed to Kinds, maybe with clearances for sensitive values.
The permissions of a request are the union of the roles of the grants that match its Domain and
branch; a read scope is narrowed to Kinds only when every matching grant is. A write reaches the
Kinds of the grants that give its permission (`write_kinds`), within the read scope.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from lorebase_core.access import SENSITIVITY_TAGS, ReadScope
from lorebase_core.errors import DomainNotFound, Forbidden
from lorebase_keeper.shapes.auth.principals import WhoamiJson
from lorebase_store import GrantInfo

ROLES: dict[str, frozenset[str]] = {
    "viewer": frozenset({"data.read"}),
    "editor": frozenset({"data.read", "operation.execute", "branch.create", "proposal.create"}),
    "reviewer": frozenset({"data.read", "proposal.review", "proposal.merge"}),
    "admin": frozenset(
        {
            "data.read",
            "operation.execute",
            "operation.execute_custom",
            "branch.create",
            "proposal.create",
            "proposal.review",
            "proposal.merge",
            "domain.settings",
            "trace.read",
            "trace.explain",
            *(f"{tag}.read" for tag in SENSITIVITY_TAGS),
        }
    ),
}
"""What each role allows. `admin` also reads every sensitive value."""

LOCAL_ADMIN = "local-admin"


@dataclass(frozen=True)
class Principal:
    """Who is calling, with the grants that were read for the credential."""

    id: str
    type: str
    grants: tuple[GrantInfo, ...]
    authenticated_by: str
    key_id: str | None = None
    """The API key id the request authenticated with (the agent trace's credential fingerprint)."""

    def matching(self, domain: str, branch: str | None) -> list[GrantInfo]:
        """The grants covering a Domain (and a branch: None matches every grant of the Domain)."""
        return [
            grant
            for grant in self.grants
            if fnmatchcase(domain, grant.domain)
            and (branch is None or fnmatchcase(branch, grant.branch))
        ]

    def permissions(self, domain: str, branch: str | None) -> frozenset[str]:
        found: set[str] = set()
        for grant in self.matching(domain, branch):
            found |= ROLES.get(grant.role, frozenset())
            found |= {f"{tag}.read" for tag in grant.clearances}
        return frozenset(found)

    def require_domain(self, domain: str) -> None:
        """404 `domain-not-found` unless some grant gives data.read on a branch of the Domain.

        Checked before the store is asked anything: a Domain the caller may not read answers
        exactly like one that does not exist (docs/auth.md, "Existence").
        """
        if "data.read" not in self.permissions(domain, None):
            raise DomainNotFound.named(domain)

    def require(self, permission: str, domain: str, branch: str | None) -> None:
        if permission not in self.permissions(domain, branch):
            where = f"Domain {domain!r}" + (f", branch {branch!r}" if branch else "")
            raise Forbidden(
                f"{self.id!r} lacks {permission} on {where}; ask an administrator for a grant",
                permission=permission,
            )

    def read_scope(self, domain: str, branch: str, *, invisible_kinds: bool) -> ReadScope:
        """What the principal reads on a branch; 403 without data.read there."""
        self.require("data.read", domain, branch)
        reading = [
            grant
            for grant in self.matching(domain, branch)
            if "data.read" in ROLES.get(grant.role, frozenset())
        ]
        kinds: set[str] | None = set()
        for grant in reading:
            if grant.kinds is None:
                kinds = None
                break
            assert kinds is not None
            kinds.update(grant.kinds)
        permissions = self.permissions(domain, branch)
        clearances = frozenset(tag for tag in SENSITIVITY_TAGS if f"{tag}.read" in permissions)
        return ReadScope(
            frozenset(kinds) if kinds is not None else None, clearances, invisible_kinds
        )

    def write_kinds(
        self, domain: str, branch: str, permissions: tuple[str, ...]
    ) -> frozenset[str] | None:
        """The Kinds the grants giving any of `permissions` on a branch cover (None: every Kind).

        A grant that only reads widens what one reads, never what one writes.
        """
        kinds: set[str] = set()
        for grant in self.matching(domain, branch):
            if not set(permissions) & ROLES.get(grant.role, frozenset()):
                continue
            if grant.kinds is None:
                return None
            kinds.update(grant.kinds)
        return frozenset(kinds)

    def to_json(self) -> WhoamiJson:
        return {
            "principal": self.id,
            "type": self.type,
            "authenticated_by": self.authenticated_by,
            "grants": [
                {
                    "domain": grant.domain,
                    "branch": grant.branch,
                    "role": grant.role,
                    "kinds": list(grant.kinds) if grant.kinds is not None else None,
                    "clearances": list(grant.clearances),
                    "permissions": sorted(
                        ROLES.get(grant.role, frozenset())
                        | {f"{tag}.read" for tag in grant.clearances}
                    ),
                }
                for grant in self.grants
            ],
        }


def local_admin() -> Principal:
    """The principal of auth mode `none`: an administrator of everything (the demo only)."""
    grant = GrantInfo(
        id=0,
        principal=LOCAL_ADMIN,
        domain="*",
        branch="*",
        role="admin",
        kinds=None,
        clearances=(),
        created_at="",
    )
    return Principal(LOCAL_ADMIN, "user", (grant,), "none")
