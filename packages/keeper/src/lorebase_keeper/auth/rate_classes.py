"""The rate-limit class of every route (keeper.rate_limits, docs/auth.md "Rate limits and quotas").

`search` is search and resolve, `context` the context packs, `writes` every unsafe method that
changes something (an agent-flow write is one request, so it counts once; notes of the agent
trace count as writes, agent-trace.md), `reads` everything else (POST reads such as /query and
/traverse, and the event stream, which counts once when opened). `None`: not limited (health,
and the browser session routes: signing in is guarded by the key or code it checks; the OIDC
sign-in parameters, which need no credential).

A test checks that every route of the app is listed here, so a new route cannot go unclassified.
"""

from __future__ import annotations

from typing import Literal

RateClass = Literal["reads", "writes", "search", "context"]

DOMAIN = "/api/v1/domains/{domain}"
RECORD = f"{DOMAIN}/kinds/{{kind}}/records/{{key}}"
PROPOSAL = f"{DOMAIN}/proposals/{{proposal}}"
WEBHOOK = f"{DOMAIN}/webhooks/{{webhook}}"

RATE_CLASSES: dict[str, RateClass | None] = {
    "GET /healthz": None,
    "GET /readyz": None,
    "GET /api/v1/auth/session": None,
    "POST /api/v1/auth/session": None,
    "DELETE /api/v1/auth/session": None,
    "GET /api/v1/auth/oidc": None,
    "GET /api/v1/auth/whoami": "reads",
    "GET /api/v1/domains": "reads",
    # the feed
    f"GET {DOMAIN}/branches/{{branch}}/changes": "reads",
    f"GET {DOMAIN}/branches/{{branch}}/events": "reads",
    # Operations: executing one is a write (a direct write or the whole agent flow, once)
    f"GET {DOMAIN}/operations": "reads",
    f"GET {DOMAIN}/operations/{{operation}}": "reads",
    f"POST {DOMAIN}/operations/{{operation}}/execute": "writes",
    # Proposals, reviews, merges
    f"GET {DOMAIN}/proposals": "reads",
    f"POST {DOMAIN}/proposals": "writes",
    f"GET {PROPOSAL}": "reads",
    f"POST {PROPOSAL}/reviews": "writes",
    f"POST {PROPOSAL}/merge": "writes",
    f"POST {PROPOSAL}/close": "writes",
    f"GET {PROPOSAL}/conflicts": "reads",
    f"POST {PROPOSAL}/conflicts/{{conflict}}/resolve": "writes",
    f"POST {DOMAIN}/branches/{{branch}}/merge": "writes",
    # Records and reads
    f"GET {DOMAIN}/schema": "reads",
    f"GET {DOMAIN}/kinds/{{kind}}/records": "reads",
    f"GET {RECORD}": "reads",
    f"GET {RECORD}/links/{{relation}}": "reads",
    f"GET {RECORD}/history": "reads",
    f"GET {RECORD}/lineage": "reads",
    f"GET {RECORD}/explain": "reads",
    f"PUT {RECORD}/vector": "writes",
    f"POST {DOMAIN}/query": "reads",
    f"POST {DOMAIN}/traverse": "reads",
    f"POST {DOMAIN}/neighborhood": "reads",
    f"POST {DOMAIN}/context": "context",
    f"POST {DOMAIN}/resolve": "search",
    f"POST {DOMAIN}/search": "search",
    f"GET {DOMAIN}/health": "reads",
    f"GET {DOMAIN}/kinds/{{kind}}/health": "reads",
    # Revisions, branches, tags
    f"GET {DOMAIN}/diff": "reads",
    f"GET {DOMAIN}/branches": "reads",
    f"POST {DOMAIN}/branches": "writes",
    f"GET {DOMAIN}/branches/{{branch}}": "reads",
    f"GET {DOMAIN}/tags": "reads",
    f"GET {DOMAIN}/tags/{{tag}}": "reads",
    # the agent trace: notes are writes
    "POST /api/v1/trace/sessions/{session_id}/notes": "writes",
    "GET /api/v1/trace/sessions": "reads",
    "GET /api/v1/trace/sessions/{session_id}": "reads",
    f"GET {DOMAIN}/audit": "reads",
    # webhooks
    f"POST {DOMAIN}/webhooks": "writes",
    f"GET {DOMAIN}/webhooks": "reads",
    f"GET {WEBHOOK}": "reads",
    f"PATCH {WEBHOOK}": "writes",
    f"DELETE {WEBHOOK}": "writes",
    f"GET {WEBHOOK}/deliveries": "reads",
    f"POST {WEBHOOK}/deliveries/{{delivery}}/retry": "writes",
}
"""`METHOD /path template` (as the OpenAPI document writes it) to its class; HEAD is GET."""
