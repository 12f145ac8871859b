"""`AsyncWrites`: the writes of `AsyncLorebaseClient` (docs/client.md, Writes): Operations,
Proposals and their Conflicts, making and merging branches, and the audit of reads and writes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from lorebase_client import routes
from lorebase_client._async.base import AsyncClientBase
from lorebase_client.answers import Answer
from lorebase_client.routes import (
    NO_VALUE,
    AuditKind,
    BranchMode,
    ConflictChoice,
    ConflictStatus,
    ProposalStatus,
    Verdict,
)


class AsyncWrites(AsyncClientBase):
    """Operations, Proposals, branches made and merged, the audit (of `AsyncLorebaseClient`)."""

    # -- writes: Operations -------------------------------------------------------------------

    async def operations(
        self,
        domain: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        etag: str | None = None,
    ) -> Answer:
        """The Operations the caller may read on the branch (`operations`), each with its
        parameters and their rules, edits, review (data and a sentence), side effects,
        permissions and `execute.allowed` (whether the caller's grants let it run there)."""
        return await self._json(routes.operations(domain, branch=branch, at=at, etag=etag))

    async def operation(
        self,
        domain: str,
        name: str,
        *,
        branch: str | None = None,
        at: str | None = None,
        etag: str | None = None,
    ) -> Answer:
        """One Operation, as `operations` lists it; `NotFound` (`operation-not-found`) for one
        that does not exist or that the caller's grants hide, as `execute` answers."""
        return await self._json(routes.operation(domain, name, branch=branch, at=at, etag=etag))

    async def execute(
        self,
        domain: str,
        operation: str,
        parameters: Mapping[str, Any],
        *,
        branch: str | None = None,
        dry_run: bool | None = None,
        expected_head: str | None = None,
        message: str | None = None,
        idempotency_key: str | None = None,
        task: str | None = None,
        intent: str | None = None,
        auto_propose: bool | None = None,
        auto_merge: bool | None = None,
    ) -> Answer:
        """Run an Operation of the schema with `parameters` (docs/client.md, Writes).

        `status` says what happened: `committed`, `dry_run` (`dry_run=True`: checked and planned,
        nothing written), `merged` (200), or `proposed` and `conflicts` (202: the write waits on
        a Proposal). A write that needs review runs, given a `task`, on the caller's task branch
        for it, which Keeper opens along with a Proposal (agents do so by default; other callers
        add `auto_propose=True`); `intent` says why (the Proposal's description). `expected_head`
        refuses the write (`StaleHead`) unless the branch is still at that Revision.
        `idempotency_key` is sent as the `Idempotency-Key` header: the same key again answers the
        first execution's answer, with `replayed` True, and runs nothing.

        Raises:
            Conflict: 409 `review-required` (the branch is protected: write on a task or branch
                of your own; `extra` holds `branch`, `proposals`, `reason` and `next`) or
                `StaleHead`.
            ValuesInvalid: 422, the parameters break the Operation's rules (`issues`).
            NotFound: 404 `operation-not-found`.
        """
        request = routes.execute(
            domain,
            operation,
            parameters,
            branch=branch,
            dry_run=dry_run,
            expected_head=expected_head,
            message=message,
            idempotency_key=idempotency_key,
            task=task,
            intent=intent,
            auto_propose=auto_propose,
            auto_merge=auto_merge,
        )
        return await self._json(request)

    # -- writes: Proposals and their Conflicts ------------------------------------------------

    def proposals(
        self,
        domain: str,
        *,
        status: ProposalStatus | None = None,
        assigned_to_me: bool = False,
        created_by_me: bool = False,
        limit: int | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every Proposal of a Domain, page after page (`limit`: Proposals per page).

        `status` keeps those `open`, `merged` or `closed`; `assigned_to_me` those waiting on the
        caller's review, `created_by_me` the caller's own.
        """
        request = routes.proposals(
            domain,
            status=status,
            assigned_to_me=assigned_to_me,
            created_by_me=created_by_me,
            limit=limit,
            cursor=None,
        )
        return self._items(request, "proposals")

    async def proposal(self, domain: str, proposal_id: str) -> Answer:
        """One Proposal: its branches, status, approval, what blocks its merge and `next` steps."""
        return await self._json(routes.proposal(domain, proposal_id))

    async def open_proposal(
        self,
        domain: str,
        source: str,
        *,
        target: str | None = None,
        title: str | None = None,
        description: str | None = None,
    ) -> Answer:
        """Propose to merge the branch `source` into `target`; answers the new Proposal (201).

        `target` defaults to the branch `source` was made from, `title` to "Merge <source> into
        <target>".
        """
        request = routes.open_proposal(
            domain, source, target=target, title=title, description=description
        )
        return await self._json(request)

    async def review_proposal(
        self, domain: str, proposal_id: str, verdict: Verdict, *, body: str | None = None
    ) -> Answer:
        """Review a Proposal (`approve`, `request_changes` or `comment`); answers the Proposal.

        Nobody approves their own Proposal: Keeper answers 409 `self-approval` (a `Conflict`).
        """
        return await self._json(routes.review_proposal(domain, proposal_id, verdict, body=body))

    async def merge_proposal(
        self,
        domain: str,
        proposal_id: str,
        *,
        message: str | None = None,
        expected_source_head: str | None = None,
    ) -> Answer:
        """Merge a Proposal into its target; answers the merged Proposal.

        `expected_source_head` (the source head you reviewed) refuses the merge with 409
        `stale-head` when the source branch moved since.

        Raises:
            Conflict: 409 `merge-blocked` (approvals pending, changes requested:
                `extra["blockers"]`), or 409 when the merge meets Conflicts (see `conflicts`,
                `resolve_conflict`).
        """
        return await self._json(
            routes.merge_proposal(
                domain, proposal_id, message=message, expected_source_head=expected_source_head
            )
        )

    async def close_proposal(self, domain: str, proposal_id: str) -> Answer:
        """Close a Proposal without merging it; answers the closed Proposal."""
        return await self._json(routes.close_proposal(domain, proposal_id))

    async def conflicts(
        self, domain: str, proposal_id: str, *, status: ConflictStatus | None = None
    ) -> Answer:
        """The Conflicts of a Proposal (`conflicts`), all or those `open` or `resolved`."""
        return await self._json(routes.conflicts(domain, proposal_id, status=status))

    async def resolve_conflict(
        self,
        domain: str,
        proposal_id: str,
        conflict_id: str,
        resolution: ConflictChoice,
        *,
        value: Any = NO_VALUE,
    ) -> Answer:
        """Resolve a Conflict: take the `source`'s value, the `target`'s, or `value` given here.

        `value` (for `resolution="value"`) is sent as given, None as JSON null; left out, it is
        not sent. Keeper tries the merge again and answers the Proposal (`conflicts`: how many are
        still open, how many resolved).
        """
        request = routes.resolve_conflict(domain, proposal_id, conflict_id, resolution, value=value)
        return await self._json(request)

    # -- writes: making and merging branches --------------------------------------------------

    async def create_branch(
        self,
        domain: str,
        name: str,
        *,
        from_branch: str | None = None,
        at: str | None = None,
        mode: BranchMode | None = None,
    ) -> Answer:
        """Create a branch from `from_branch` (default: the default branch) at `at` (default: head).

        `mode` is `overlay` (Keeper's default: only changed rows are stored) or `copy`.
        """
        request = routes.create_branch(domain, name, from_branch=from_branch, at=at, mode=mode)
        return await self._json(request)

    async def merge_branch(
        self,
        domain: str,
        branch: str,
        *,
        into: str | None = None,
        message: str | None = None,
        expected_head: str | None = None,
        resolutions: Sequence[Mapping[str, Any]] | None = None,
    ) -> Answer:
        """Merge `branch` into `into` (default: the branch it was made from) directly.

        `result` is `fast_forward`, `merge` or `up_to_date`, with the `revision` it made.
        `resolutions` settle Conflicts ahead: `{"ref": "Supplier/S-1001", "attribute":
        "risk_score", "resolution": "source" | "target" | "value", "value": ...}`.

        Raises:
            Conflict: 409 `merge-conflicts` (`extra["conflicts"]`: resolve them with
                `resolutions`), or 409 `review-required` for a protected target (open a Proposal).
        """
        request = routes.merge_branch(
            domain,
            branch,
            into=into,
            message=message,
            expected_head=expected_head,
            resolutions=resolutions,
        )
        return await self._json(request)

    # -- the audit ----------------------------------------------------------------------------

    async def audit(
        self,
        domain: str,
        *,
        kind: AuditKind | None = None,
        principal: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Answer:
        """One page of the read and write audit of a Domain, newest first (`entries`,
        `next_cursor`); for the Domain's administrators (domain.settings), 403 for others.

        `kind` keeps reads or writes only, `principal` one principal's, `since` and `until`
        (ISO 8601 times with a zone) a span of time.
        """
        request = routes.audit(
            domain,
            kind=kind,
            principal=principal,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
        return await self._json(request)
