"""What every route of a Domain starts with: the caller, one Reader and the caller's read scope."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from fastapi import Request

from lorebase_core.access import ReadScope
from lorebase_core.errors import HistoryForbidden, InvalidInput, Issue
from lorebase_keeper.answers import AnswerCache
from lorebase_keeper.auth import Authenticator
from lorebase_keeper.authz import Principal
from lorebase_platform.settings import PageSettings, Settings
from lorebase_store.reader import Reader
from lorebase_store.store import Store


@dataclass
class Keeper:
    """What the routes share, kept on `app.state.keeper`."""

    settings: Settings
    store: Store
    authenticator: Authenticator
    cache: AnswerCache


def keeper_of(request: Request) -> Keeper:
    found: Keeper = request.app.state.keeper
    return found


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

    def stamp(self) -> dict[str, object]:
        """The members every answer starts with."""
        return {"domain": self.domain, "branch": self.branch, "revision": self.reader.revision}

    def require_history(self) -> None:
        if not self.scope.history:
            raise HistoryForbidden(
                "History reads need a grant that is not narrowed to Kinds",
            )


@contextmanager
def domain_read(
    request: Request, domain: str, *, branch: str | None = None, at: str | None = None
) -> Iterator[Read]:
    """Authenticate, open a Reader on the branch (at `at`) and work out the read scope."""
    keeper = keeper_of(request)
    principal = keeper.authenticator.principal(request)
    with keeper.store.reader(domain, branch=branch or None, at=at or None) as reader:
        scope = principal.read_scope(
            domain,
            reader.view.branch.name,
            invisible_kinds=keeper.settings.keeper.auth.authz.invisible_kinds,
        )
        yield Read(keeper, principal, reader, scope)


def page_limit(limit: int | None, pages: PageSettings, *, path: str = "limit") -> int:
    """A page size within its settings: the default when absent, 422 out-of-range past them."""
    return bounded(limit, pages.default_limit, pages.max_limit, path=path)


def bounded(value: int | None, default: int, maximum: int, *, path: str, minimum: int = 1) -> int:
    if value is None:
        return default
    if not minimum <= value <= maximum:
        raise InvalidInput(
            f"{path} must be between {minimum} and {maximum}",
            [Issue(path, f"{value} is not between {minimum} and {maximum}", "out-of-range")],
        )
    return value
