"""What a webhook may be registered with: its target, events, branches and clearances.

A target's literal address is checked here; a host name is resolved and checked by the sender at
every attempt (a name's answer may change after registration).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa

from lorebase_core.access import SENSITIVITY_TAGS
from lorebase_core.addresses import address_refusal, literal_address
from lorebase_core.errors import Issue, WebhookInvalid
from lorebase_platform.settings import WebhookSettings
from lorebase_store.results import DomainInfo
from lorebase_store.versioned.schemas import schema_at
from lorebase_store.versioned.views import list_branches, load_branch

REVISION_EVENT = "revision.committed"
ANY_OPERATION = "operation.*"
DEFAULT_EVENTS = (REVISION_EVENT, ANY_OPERATION)


def _url_issues(url: str, settings: WebhookSettings) -> list[Issue]:
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - a port out of range raises here
    except ValueError as exc:
        return [Issue("url", f"{url!r} is not a URL ({exc})", "url")]
    schemes = ", ".join(settings.allowed_schemes)
    if parts.scheme not in settings.allowed_schemes:
        return [Issue("url", f"the scheme must be one of {schemes} (webhooks.allowed_schemes)")]
    if not host:
        return [Issue("url", "the URL names no host: give https://host/path", "url")]
    if parts.username is not None or parts.password is not None:
        return [Issue("url", "credentials in the URL are refused: use webhooks.headers", "url")]
    address = literal_address(host)
    refusal = address_refusal(address) if address is not None else None
    if refusal is not None and not settings.allow_private_targets:
        return [
            Issue(
                "url",
                f"{address} is {refusal}, not a public target; give a public one "
                "(webhooks.allow_private_targets allows them, for local development only)",
                "private-target",
            )
        ]
    return []


def _event_issues(events: list[Any], declared: set[str]) -> list[Issue]:
    if not events:
        return [Issue("events", f"name at least one event, for example {REVISION_EVENT!r}")]
    issues: list[Issue] = []
    known = ", ".join(sorted(declared)) or "none"
    for index, event in enumerate(events):
        if event in DEFAULT_EVENTS:
            continue
        if isinstance(event, str) and event.startswith("operation."):
            if event.removeprefix("operation.") in declared:
                continue
            message = (
                f"no Operation of the Domain declares the side effect {event[10:]!r} "
                f"(declared: {known}); use operation.* for every one"
            )
        else:
            message = f"{event!r} is not an event: use {REVISION_EVENT}, {ANY_OPERATION} or operation.<side effect>"
        issues.append(Issue(f"events[{index}]", message, "event"))
    return issues


def checked_webhook(
    connection: sa.Connection,
    info: DomainInfo,
    settings: WebhookSettings,
    *,
    url: Any,
    events: list[Any],
    branches: list[Any],
    clearances: list[Any],
) -> dict[str, Any]:
    """The webhook's columns, or WebhookInvalid listing every issue with its path."""
    issues = (
        _url_issues(url, settings)
        if isinstance(url, str)
        else [Issue("url", "give the target as a string", "url")]
    )
    default = load_branch(connection, info, info.default_branch)
    schema = schema_at(connection, info, default.head_revision)
    declared = {
        effect for operation in schema.operations.values() for effect in operation.side_effects
    }
    issues += _event_issues(events, declared)
    names = {branch.name for branch in list_branches(connection, info)}
    for index, branch in enumerate(branches):
        if branch not in names:
            issues.append(
                Issue(
                    f"branches[{index}]", f"Domain {info.name!r} has no branch {branch!r}", "branch"
                )
            )
    for index, tag in enumerate(clearances):
        if tag not in SENSITIVITY_TAGS:
            issues.append(
                Issue(
                    f"clearances[{index}]",
                    f"{tag!r} is not a sensitivity tag: use {', '.join(SENSITIVITY_TAGS)}",
                    "clearance",
                )
            )
    if issues:
        raise WebhookInvalid("The webhook cannot be registered as given; fix each issue", issues)
    return {
        "url": url,
        "events": list(dict.fromkeys(events)),
        "branches": list(dict.fromkeys(branches)),
        "clearances": sorted(set(clearances)),
    }


def audited_url(url: str) -> str:
    """The URL as the audit log keeps it: scheme, host and path (a query may hold a token)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"
