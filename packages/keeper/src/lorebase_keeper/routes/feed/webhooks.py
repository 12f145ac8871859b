"""Webhooks of a Domain and their deliveries (docs/feed.md).

POST/GET /webhooks, GET/PATCH/DELETE /webhooks/{id}, GET /webhooks/{id}/deliveries and
POST /webhooks/{id}/deliveries/{delivery}/retry. Managing them takes domain.settings on the
whole Domain (a webhook may receive the events of every branch and Kind), and a clearance needs
that clearance's read permission on the whole Domain too (on PATCH, only the clearances added).
The secret is in the answer that creates a webhook and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Annotated, Literal, TypeVar

from fastapi import Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from lorebase_core.access import SENSITIVITY_TAGS
from lorebase_core.errors import ClearanceForbidden, UnsafeSettings
from lorebase_keeper.auth.authz import Principal
from lorebase_keeper.http.documented import WRITE_RESPONSES, answer
from lorebase_keeper.http.parameters import CURSOR, LIMIT
from lorebase_keeper.http.segments import segment_router
from lorebase_keeper.reads.answers import plain
from lorebase_keeper.reads.reading import Keeper, domain_caller, page_limit
from lorebase_keeper.shapes.feed import webhooks as shapes
from lorebase_keeper.trace.visibility import domain_wide_permissions, require_domain_wide
from lorebase_platform.settings import PageSettings
from lorebase_store import (
    EncryptionKeyInvalid,
    create_webhook,
    delete_webhook,
    get_webhook,
    list_deliveries,
    list_webhooks,
    retry_delivery,
    update_webhook,
)

DELIVERIES_PAGE = PageSettings(default_limit=50, max_limit=500)
T = TypeVar("T")
Clearance = Literal["pii", "confidential", "restricted"]

router = segment_router("/api/v1/domains/{domain}/webhooks", "webhooks", WRITE_RESPONSES)


class WebhookRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(max_length=2048, description="The receiver: https://host/path.")
    events: list[str] | None = Field(
        default=None,
        max_length=100,
        description="revision.committed, operation.* or operation.<side effect> (default: "
        "revision.committed and operation.*).",
    )
    branches: list[str] = Field(
        default_factory=list, max_length=100, description="Branches to follow (empty: every one)."
    )
    clearances: list[str] = Field(
        default_factory=list,
        max_length=len(SENSITIVITY_TAGS),
        description="Sensitivity tags (pii, confidential, restricted) whose values operation "
        "events carry unmasked; each needs its read permission on the whole Domain.",
    )


class WebhookChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(default=None, max_length=2048)
    events: list[str] | None = Field(default=None, max_length=100)
    branches: list[str] | None = Field(default=None, max_length=100)
    clearances: list[str] | None = Field(
        default=None, max_length=len(SENSITIVITY_TAGS), description="The new full set."
    )
    enabled: bool | None = Field(default=None, description="false pauses deliveries.")


def _admin(request: Request, domain: str) -> tuple[Keeper, Principal]:
    keeper, caller = domain_caller(request, domain)
    require_domain_wide(
        caller, domain, "domain.settings", "webhooks receive the events of every branch and Kind"
    )
    return keeper, caller


def _require_clearances(caller: Principal, domain: str, clearances: Iterable[str]) -> None:
    wide = domain_wide_permissions(caller, domain)
    for tag in sorted(set(clearances)):
        if tag in SENSITIVITY_TAGS and f"{tag}.read" not in wide:
            raise ClearanceForbidden(
                f"A webhook cleared for {tag!r} receives {tag} values unmasked: that needs "
                f"{tag}.read on the whole Domain {domain!r}, which {caller.id!r} lacks",
                permission=f"{tag}.read",
            )


def _with_settings(work: Callable[[], T]) -> T:
    try:
        return work()
    except EncryptionKeyInvalid as exc:
        raise UnsafeSettings(str(exc)) from None


@router.post(
    "",
    status_code=201,
    summary="Register a webhook (its secret is in this answer only)",
    responses=answer(shapes.WebhookCreated, 201, "The webhook and its secret."),
)
def add_webhook(request: Request, domain: str, body: WebhookRequest) -> Response:
    keeper, caller = _admin(request, domain)
    _require_clearances(caller, domain, body.clearances)
    made = _with_settings(
        lambda: create_webhook(
            keeper.store,
            domain,
            url=body.url,
            events=body.events,
            branches=body.branches,
            clearances=body.clearances,
            principal=caller.id,
            settings=keeper.settings.webhooks,
        )
    )
    return plain({**made.webhook.to_json(), "secret": made.secret}, status=201)


@router.get("", summary="The webhooks of a Domain", responses=answer(shapes.WebhookList))
def webhooks(request: Request, domain: str) -> Response:
    keeper, _ = _admin(request, domain)
    found = list_webhooks(keeper.store, domain)
    listed: shapes.WebhookListJson = {
        "domain": domain,
        "webhooks": [webhook.to_json() for webhook in found],
    }
    return plain(listed)


@router.get("/{webhook}", summary="One webhook", responses=answer(shapes.Webhook))
def webhook(request: Request, domain: str, webhook: str) -> Response:
    keeper, _ = _admin(request, domain)
    return plain(get_webhook(keeper.store, domain, webhook).to_json())


@router.patch(
    "/{webhook}",
    summary="Change a webhook's target, events, branches, clearances or enabled",
    responses=answer(shapes.Webhook),
)
def change_webhook(request: Request, domain: str, webhook: str, body: WebhookChange) -> Response:
    keeper, caller = _admin(request, domain)
    changes = {name: getattr(body, name) for name in body.model_fields_set}
    changes = {name: value for name, value in changes.items() if value is not None}
    if "clearances" in changes:
        held = set(get_webhook(keeper.store, domain, webhook).clearances)
        _require_clearances(caller, domain, set(changes["clearances"]) - held)
    changed = _with_settings(
        lambda: update_webhook(
            keeper.store,
            domain,
            webhook,
            changes,
            principal=caller.id,
            settings=keeper.settings.webhooks,
        )
    )
    return plain(changed.to_json())


@router.delete(
    "/{webhook}",
    summary="Remove a webhook with its deliveries",
    responses=answer(shapes.WebhookDeleted, 200, "Removed."),
)
def remove_webhook(request: Request, domain: str, webhook: str) -> Response:
    keeper, caller = _admin(request, domain)
    dropped = delete_webhook(keeper.store, domain, webhook, principal=caller.id)
    deleted: shapes.WebhookDeletedJson = {
        "id": webhook,
        "deleted": True,
        "deliveries_dropped": dropped,
    }
    return plain(deleted)


@router.get(
    "/{webhook}/deliveries",
    summary="A webhook's deliveries, newest event first",
    responses=answer(shapes.DeliveryList),
)
def deliveries(
    request: Request,
    domain: str,
    webhook: str,
    status: Annotated[
        Literal["pending", "delivered", "dead"] | None,
        Query(description="Only deliveries of this status (dead: the ones to retry)."),
    ] = None,
    limit: LIMIT = None,
    cursor: CURSOR = None,
) -> Response:
    keeper, _ = _admin(request, domain)
    page = list_deliveries(
        keeper.store,
        domain,
        webhook,
        status=status,
        limit=page_limit(limit, DELIVERIES_PAGE),
        cursor=cursor,
    )
    listed: shapes.DeliveryListJson = {
        "webhook_id": webhook,
        "deliveries": [delivery.to_json() for delivery in page.items],
        "next_cursor": page.next_cursor,
    }
    return plain(listed)


@router.post(
    "/{webhook}/deliveries/{delivery}/retry",
    summary="Send a dead delivery again (same delivery id and Idempotency-Key)",
    responses=answer(shapes.Delivery, 200, "The delivery, pending again."),
)
def retry(request: Request, domain: str, webhook: str, delivery: str) -> Response:
    keeper, caller = _admin(request, domain)
    again = retry_delivery(keeper.store, domain, webhook, delivery, principal=caller.id)
    return plain(again.to_json())
