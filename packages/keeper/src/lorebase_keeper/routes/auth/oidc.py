"""How to sign in with OIDC: GET /api/v1/auth/oidc (no credential needed, like /healthz).

The web app and `lorebase login` read it to send a person to the issuer. It answers 404 unless
keeper.auth.mode takes OIDC, to callers without a credential too (it is answered, not raised,
so the rule that an unauthenticated request's 4xx is a 401 does not hide it), and never holds
the client secret.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from lorebase_core.errors import NotFound
from lorebase_keeper.http.documented import PROBLEM_REF, answer
from lorebase_keeper.http.errors import ProblemResponse
from lorebase_keeper.reads.answers import plain
from lorebase_keeper.reads.reading import keeper_of
from lorebase_keeper.shapes.auth.oidc import OidcConfiguration
from lorebase_platform.problems import problem_document

router = APIRouter(prefix="/api/v1", tags=["auth"])


def _problem(description: str) -> dict[str, object]:
    return {
        "description": description,
        "content": {"application/problem+json": {"schema": PROBLEM_REF}},
    }


@router.get(
    "/auth/oidc",
    summary="The OIDC issuer and client to sign in with",
    responses={
        **answer(OidcConfiguration),
        404: _problem("not-found: this Keeper's auth mode takes no OIDC."),
        502: _problem("identity-provider-unavailable: the issuer could not be read."),
    },
)
def oidc_configuration(request: Request) -> Response:
    oidc = keeper_of(request).authenticator.oidc
    if oidc is None:
        missing = NotFound(
            "This Keeper takes no OIDC sign-in (keeper.auth.mode is not oidc or api_key+oidc): "
            "sign in with an API key"
        )
        return ProblemResponse(problem_document(missing, instance=request.url.path), 404)
    return plain(oidc.public_configuration())
