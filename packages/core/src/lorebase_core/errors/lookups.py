"""Names that name nothing: Domains, branches, Revisions, Kinds, Relations, Records, Traits."""

from __future__ import annotations

from collections.abc import Iterable

from lorebase_core.errors.base import Conflict, NotFound


class DomainNotFound(NotFound):
    code = "domain-not-found"
    title = "Unknown Domain"

    @classmethod
    def named(cls, name: str, visible: Iterable[str] = ()) -> DomainNotFound:
        """The error of an unknown Domain, also of one the caller may not read: one message, so
        the two answers are the same bytes but for the name. `visible` holds the Domains the
        caller may read (Keeper fills it in when it answers)."""
        return cls._named("Domain", name, None, visible, "Domains")


class BranchNotFound(NotFound):
    code = "branch-not-found"
    title = "Unknown branch"

    domain: str | None = None

    @classmethod
    def named(cls, name: str, domain: str, visible: Iterable[str] = ()) -> BranchNotFound:
        """The error of an unknown branch; `visible` holds the branches the caller may read
        (Keeper fills it in when it answers)."""
        error = cls._named("Branch", name, domain, visible, "branches")
        error.domain = domain
        return error


class RevisionNotFound(NotFound):
    code = "revision-not-found"
    title = "Unknown Revision"


class KindNotFound(NotFound):
    code = "kind-not-found"
    title = "Unknown Kind"

    @classmethod
    def named(cls, name: str, domain: str, visible: Iterable[str] = ()) -> KindNotFound:
        """The error of an unknown Kind, also of an invisible one: `visible` holds the Kinds
        the caller may read (and no other)."""
        return cls._named("Kind", name, domain, visible, "Kinds")


class RelationNotFound(NotFound):
    code = "relation-not-found"
    title = "Unknown Relation"

    @classmethod
    def named(cls, name: str, domain: str, visible: Iterable[str] = ()) -> RelationNotFound:
        """The error of an unknown Relation, also of one touching an invisible Kind: `visible`
        holds the names (forward and inverse) of the Relations the caller may read."""
        return cls._named("Relation", name, domain, visible, "Relations")


class RecordNotFound(NotFound):
    code = "record-not-found"
    title = "Unknown Record"


class RevisionNotOnBranch(NotFound):
    code = "revision-not-on-branch"
    title = "Revision not on this branch"


class TagNotFound(RevisionNotFound):
    code = "tag-not-found"
    title = "Unknown tag"


class TraitNotFound(NotFound):
    code = "trait-not-found"
    title = "Unknown Trait"

    @classmethod
    def named(cls, name: str, domain: str, visible: Iterable[str] = ()) -> TraitNotFound:
        """The error of an unknown Trait, also of one no readable Kind carries: `visible`
        holds the Traits some Kind the caller may read carries."""
        return cls._named("Trait", name, domain, visible, "Traits")


class AttributeNotFound(NotFound):
    code = "attribute-not-found"
    title = "Unknown Attribute"


class AmbiguousRevision(Conflict):
    code = "ambiguous-revision"
    title = "Ambiguous Revision prefix"
