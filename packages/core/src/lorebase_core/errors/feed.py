"""What Keeper sends out: the change feed, webhooks and their deliveries, the agent trace."""

from __future__ import annotations

from lorebase_core.errors.base import Conflict, Forbidden, InvalidInput, NotFound, TooManyRequests


class TraceSessionNotFound(NotFound):
    """No trace session of that id and principal, or none of whose steps the caller may see:
    both answer the same, so an id says nothing about sessions the caller cannot read."""

    code = "trace-session-not-found"
    title = "Unknown trace session"


class TooManyStreams(TooManyRequests):
    """More open event streams than agents.feed.max_streams_per_principal or _per_process."""

    code = "too-many-streams"
    title = "Too many open event streams"


class ResyncRequired(Conflict):
    """A feed position that cannot be followed: take a new context pack, follow from its revision.

    A `since` off the first-parent history of the branch, or more than agents.feed.max_scan
    Revisions behind its head.
    """

    code = "resync-required"
    title = "Take a new context pack"


class EncryptionKeyRequired(Conflict):
    """A webhook cannot be created without webhooks.encryption_key (or allow_unsealed_keys)."""

    code = "encryption_key_required"
    title = "Webhook encryption key required"


class WebhookNotFound(NotFound):
    code = "webhook-not-found"
    title = "Webhook not found"


class DeliveryNotFound(NotFound):
    code = "delivery-not-found"
    title = "Delivery not found"


class WebhookInvalid(InvalidInput):
    """A webhook's target, events, branches or clearances that cannot be accepted."""

    code = "webhook-invalid"
    title = "Webhook invalid"


class ClearanceForbidden(Forbidden):
    """A webhook clearance (pii, ...) whose read permission the caller lacks on the whole Domain."""

    code = "clearance-forbidden"
    title = "Clearance not held"
