"""What every route of a Domain starts with: the caller, one Reader and the caller's read scope."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property

from fastapi import Request, Response

from lorebase_core.access import ReadScope
from lorebase_core.errors import (
    DomainNotFound,
    HistoryForbidden,
    InvalidInput,
    Issue,
    RecordNotFound,
    quoted,
    shortened,
)
from lorebase_core.schema import KindDef
from lorebase_keeper.auth.authenticate import Authenticator
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.reads.answers import ANSWER_SLOT, AnswerCache, stamped
from lorebase_keeper.shapes.common import StampedJson
from lorebase_keeper.trace.context import StepContext, current_step
from lorebase_keeper.trace.recorder import Recorder
from lorebase_platform.settings import PageSettings, Settings
from lorebase_store import Lineage, Reader, RecordVersion, Statistics, Store


@dataclass
class Keeper:
    """What the routes share, kept on `app.state.keeper`."""

    settings: Settings
    store: Store
    authenticator: Authenticator
    cache: AnswerCache
    recorder: Recorder
    """The agent trace's and the read audit's off-path writer."""


def keeper_of(request: Request) -> Keeper:
    found: Keeper = request.app.state.keeper
    return found


def caller_of(request: Request) -> tuple[Keeper, Principal]:
    """Keeper, and the principal the request comes from (401 without a credential it takes)."""
    keeper = keeper_of(request)
    return keeper, keeper.authenticator.principal(request)


def require_known_domain(keeper: Keeper, principal: Principal, domain: str) -> None:
    """404 `domain-not-found` for a Domain the caller has no grant in, or that does not exist.
    The grants are asked before the store: a foreign Domain answers as an unknown one."""
    principal.require_domain(domain)
    if not keeper.store.has_domain(domain):
        raise DomainNotFound.named(domain)


def domain_caller(request: Request, domain: str) -> tuple[Keeper, Principal]:
    """`caller_of` for a route of an existing Domain the caller has a grant in."""
    keeper, principal = caller_of(request)
    require_known_domain(keeper, principal, domain)
    return keeper, principal


@dataclass(frozen=True)
class Read:
    keeper: Keeper
    principal: Principal
    reader: Reader
    scope: ReadScope

    @property
    def domain(self) -> str:
        return self.reader.view.domain.name

    @property
    def branch(self) -> str:
        return self.reader.view.branch.name

    @cached_property
    def statistics(self) -> Statistics | None:
        """The statistics of the Domain's default branch (None when never counted), read once
        per answer: the ETag's mark and the coverage block see the same (`coverage`)."""
        return self.reader.statistics()

    def stamp(self) -> StampedJson:
        """The members every answer starts with."""
        return {"domain": self.domain, "branch": self.branch, "revision": self.reader.revision}

    def answer(
        self,
        request: Request,
        compute: Callable[[str], object],
        *,
        body: object = None,
        markdown: bool = False,
    ) -> Response:
        """The revision-stamped answer of this read (`answers.stamped`: ETag, 304, cache)."""
        return stamped(
            request,
            self.keeper.cache,
            revision=self.reader.revision,
            scope=self.scope,
            compute=compute,
            body=body,
            markdown=markdown,
        )

    def kind(self, name: str) -> KindDef:
        """The Kind `name` of the schema read, one the caller may read (`ReadScope.kind`:
        unknown and unreadable Kinds answer alike, 404)."""
        return self.scope.kind(self.reader.schema, name)

    def record(self, kind: str, key: str) -> RecordVersion:
        """The Record `kind/key` as this read sees it (404 `record-not-found` without it)."""
        found = self.reader.get_record(kind, key)
        if found is None:
            raise RecordNotFound(
                f"{kind}/{shortened(key)} does not exist on branch {quoted(self.branch)}"
            )
        return found

    def lineage(self, kind: str, key: str) -> Lineage:
        """Where each current value of the Record came from (read.history.lineage_count_max)."""
        count_max = self.keeper.settings.read.history.lineage_count_max
        return self.reader.lineage(kind, key, count_max=count_max)

    def require_history(self) -> None:
        if not self.scope.history:
            raise HistoryForbidden(
                "History reads need a grant that is not narrowed to Kinds",
            )


@contextmanager
def domain_read(
    request: Request, domain: str, *, branch: str | None = None, at: str | None = None
) -> Iterator[Read]:
    """Authenticate, open a Reader on the branch (at `at`) and work out the read scope.

    The grants are checked before the store is asked (docs/auth.md, "Existence"): a Domain the
    caller reads no branch of is 404 `domain-not-found`, a branch its grants do not cover is 403
    from the name alone, and `at` is resolved only once the branch is known to be readable.
    """
    keeper, principal = caller_of(request)
    slot = ANSWER_SLOT.get()
    if slot is not None:
        slot.principal = principal
    principal.require_domain(domain)
    if branch:
        principal.require("data.read", domain, branch)

    def authorize(branch_name: str) -> None:
        principal.require("data.read", domain, branch_name)

    with keeper.store.reader(
        domain, branch=branch or None, at=at or None, authorize=authorize
    ) as reader:
        scope = principal.read_scope(
            domain,
            reader.view.branch.name,
            invisible_kinds=keeper.settings.keeper.auth.authz.invisible_kinds,
        )
        step = current_step()
        if step is not None:
            _into_step(step, keeper, reader)
        yield Read(keeper, principal, reader, scope)


def _into_step(step: StepContext, keeper: Keeper, reader: Reader) -> None:
    """What the agent trace keeps of a traced read: where it read, and the schemas whose tags
    decide which of its filter values may be kept (the one read and the default branch's)."""
    view = reader.view
    step.domain = view.domain.name
    step.branch = view.branch.name
    step.revision = reader.revision
    step.schemas.append(reader.schema)
    if view.branch.name != view.domain.default_branch:
        with keeper.store.reader(view.domain.name) as default:
            step.schemas.append(default.schema)


def page_limit(limit: int | None, pages: PageSettings, *, path: str = "limit") -> int:
    """A page size within its settings: the default when absent, 422 out-of-range past them."""
    if limit is None:
        return pages.default_limit
    if not 1 <= limit <= pages.max_limit:
        raise InvalidInput(
            f"{path} must be between 1 and {pages.max_limit}",
            [Issue(path, f"{limit} is not between 1 and {pages.max_limit}", "out-of-range")],
        )
    return limit
