"""Revisions, branches and tags: GET /diff, /branches, /tags; POST /branches."""

from __future__ import annotations

from typing import Literal

from fastapi import Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from lorebase_core.access import ReadScope
from lorebase_core.errors import RevisionNotFound, TagNotFound, quoted
from lorebase_core.schema import Schema
from lorebase_keeper.http.documented import READ_RESPONSES, answer, read_answer
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.answers import plain, stamped
from lorebase_keeper.reads.reading import Read, caller_of, domain_read, keeper_of
from lorebase_keeper.shapes.common import JsonObject
from lorebase_keeper.shapes.reads.revisions import (
    BranchAnswer,
    BranchCreated,
    BranchesAnswer,
    BranchesAnswerJson,
    DiffAnswer,
    DiffAnswerJson,
    TagAnswer,
    TagEntryJson,
    TagsAnswer,
    TagsAnswerJson,
)
from lorebase_keeper.writes.agent_writes import agent_writes_of
from lorebase_store import DiffEntry, RevisionInfo

router = segment_router("/api/v1/domains/{domain}", "revisions", READ_RESPONSES)


def _visible_entry(
    entry: DiffEntry, schema: Schema, scope: ReadScope, *, link: bool
) -> JsonObject | None:
    """A diff entry the caller may see, values masked; None for an invisible Kind or Relation."""
    if link:
        relation_name = entry.ref.split(":", 1)[0]
        if not scope.relation_visible(schema, relation_name):
            return None
        attributes = schema.relations[relation_name].attributes
    else:
        kind_name = entry.ref.split("/", 1)[0]
        if kind_name not in schema.kinds or not scope.kind_visible(kind_name):
            return None
        attributes = schema.kinds[kind_name].attributes
    document = entry.to_json()
    document["attributes"] = scope.changed_names(attributes, entry.attributes, entry.change)
    for side in ("before", "after"):
        if document[side] is not None:
            document[side] = scope.mask(attributes, document[side])
    return document


DIFF_END = (
    "A branch (its head), or a Revision id, tag or unique prefix; a name that is both a branch "
    "and a tag or prefix means the branch."
)


def _diff_end(read: Read, text: str) -> RevisionInfo:
    """One end of a diff: a branch's head first (what users try first), else a Revision.

    Both are looked up as the caller may read them: a branch its grants do not cover, and a
    Revision of such a branch, answer like an unknown name.
    """
    head = read.reader.branch_head(text)
    if head is not None:
        return head
    try:
        return read.reader.revision_info(text)
    except RevisionNotFound:
        raise RevisionNotFound(
            f"No branch, Revision, tag or unique Revision prefix {quoted(text)} "
            f"in Domain {quoted(read.domain)}"
        ) from None


@router.get(
    "/diff",
    summary="What changed between two Revisions or branches",
    responses=read_answer(DiffAnswer),
)
def get_diff(
    request: Request,
    domain: str,
    from_: str = Query(alias="from", description=DIFF_END),
    to: str = Query(description=DIFF_END),
) -> Response:
    keeper = keeper_of(request)
    with domain_read(request, domain) as read:
        read.require_history()  # a diff is the sequence of changes between two Revisions
        schema, scope = read.reader.schema, read.scope
        source = _diff_end(read, from_)
        target = _diff_end(read, to)

    def compute(_etag: str) -> DiffAnswerJson:
        found = keeper.store.diff(domain, source.id, target.id)
        records = [_visible_entry(entry, schema, scope, link=False) for entry in found.records]
        links = [_visible_entry(entry, schema, scope, link=True) for entry in found.links]
        return {
            "domain": domain,
            "revision": found.to_revision,
            "from": found.from_revision,
            "to": found.to_revision,
            "records": [entry for entry in records if entry is not None],
            "links": [entry for entry in links if entry is not None],
        }

    # a branch end moves: both Revisions go into the ETag, not only the one the answer names
    ends = {"from": source.id, "to": target.id}
    return stamped(
        request, keeper.cache, revision=target.id, scope=scope, compute=compute, body=ends
    )


@router.get("/branches", summary="The branches of a Domain", responses=answer(BranchesAnswer))
def list_branches(request: Request, domain: str) -> Response:
    keeper, principal = caller_of(request)
    principal.require_domain(domain)  # before the store: a foreign Domain is an unknown one
    listed: BranchesAnswerJson = {
        "domain": domain,
        "branches": [
            branch.to_json()
            for branch in keeper.store.branches(domain)
            if "data.read" in principal.permissions(domain, branch.name)
        ],
    }
    return plain(listed)


@router.get(
    "/branches/{branch:path}",
    summary="One branch and its head",
    responses=answer(BranchAnswer),
)
def get_branch(request: Request, domain: str, branch: str) -> Response:
    with domain_read(request, domain, branch=branch) as read:
        return plain(
            {
                "domain": domain,
                "revision": read.reader.revision,
                **read.reader.view.branch.to_json(),
            },
            revision=read.reader.revision,
        )


class BranchRequest(BaseModel):
    """A new branch, cut from a branch at its head or at one of its Revisions."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = Field(description="Name of the new branch (letters, digits and . _ / -).")
    from_branch: str | None = Field(
        default=None, alias="from", description="Branch to start from (default: the default one)."
    )
    at: str | None = Field(
        default=None, description="Start at this Revision of it (default: head)."
    )
    mode: Literal["overlay", "copy"] = Field(
        default="overlay",
        description="overlay stores only the rows the branch changes; copy stores full rows.",
    )


@router.post(
    "/branches",
    status_code=201,
    summary="Create a branch at a Revision",
    responses=answer(BranchCreated, 201, "The branch."),
)
def create_branch(request: Request, domain: str, body: BranchRequest) -> Response:
    keeper, principal = caller_of(request)
    with domain_read(request, domain, branch=body.from_branch, at=body.at) as read:
        source = read.branch
    principal.require("branch.create", domain, body.name)
    agent_writes = agent_writes_of(keeper.settings, keeper.store.domain(domain))
    created = keeper.store.create_branch(
        domain,
        body.name,
        from_branch=source,
        at=body.at,
        mode=body.mode,
        created_by=principal.id,
        reserved_prefix=agent_writes.branch_prefix,
    )
    return plain(
        {"domain": domain, **created.to_json()}, status=201, revision=created.head_revision
    )


@router.get(
    "/tags",
    summary="The tags of a Domain and the Revisions they name",
    responses=answer(TagsAnswer),
)
def list_tags(request: Request, domain: str) -> Response:
    keeper = keeper_of(request)
    with domain_read(request, domain) as read:
        tags = {
            name: _readable(read, revision) for name, revision in keeper.store.tags(domain).items()
        }
    listed: list[TagEntryJson] = [
        {"name": name, "revision": found} for name, found in tags.items() if found
    ]
    answered: TagsAnswerJson = {"domain": domain, "tags": listed}
    return plain(answered)


def _readable(read: Read, revision: str) -> str | None:
    """The Revision id when it lies on a branch the caller reads (else the tag is not shown)."""
    try:
        return read.reader.revision_info(revision).id
    except RevisionNotFound:
        return None


@router.get("/tags/{tag:path}", summary="One tag and its Revision", responses=answer(TagAnswer))
def get_tag(request: Request, domain: str, tag: str) -> Response:
    keeper = keeper_of(request)
    with domain_read(request, domain) as read:
        tags = keeper.store.tags(domain)
        # a tag of a Revision on a branch the caller may not read answers like an unknown tag
        if tag not in tags or _readable(read, tags[tag]) is None:
            raise TagNotFound(f"Tag {quoted(tag)} does not exist in Domain {quoted(domain)}")
        revision = read.reader.revision_info(tags[tag])
    return plain(
        {"domain": domain, "name": tag, "revision": revision.id, **revision.to_json()},
        revision=revision.id,
    )
