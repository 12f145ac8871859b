"""Lorebase client: Keeper's API over HTTP (sync and async) and the `lorebase` CLI.

```python
from lorebase_client import LorebaseClient

with LorebaseClient(api_key="lbk_...") as client:
    supplier = client.record("supply", "Supplier", "S-1001")
```

Errors are the classes of `lorebase_core.errors`, rebuilt from Keeper's problem documents
(lorebase_client.errors); docs/client.md is the guide.
"""

from lorebase_client._async.client import AsyncLorebaseClient
from lorebase_client._sync.client import LorebaseClient
from lorebase_client.answers import Answer, Text
from lorebase_client.connection import API_KEY_ENV, DEFAULT_URL, URL_ENV, TraceMode
from lorebase_client.errors import (
    InvalidPathSegment,
    UnexpectedAnswer,
    error_from_response,
    problem_of,
    response_of,
)
from lorebase_client.routes import (
    NO_VALUE,
    AuditKind,
    BranchMode,
    ConflictChoice,
    ConflictStatus,
    ContextOptions,
    ExplainFormat,
    ProposalStatus,
    SchemaFormat,
    Verdict,
)

__all__ = [
    "API_KEY_ENV",
    "DEFAULT_URL",
    "NO_VALUE",
    "URL_ENV",
    "Answer",
    "AsyncLorebaseClient",
    "AuditKind",
    "BranchMode",
    "ConflictChoice",
    "ConflictStatus",
    "ContextOptions",
    "ExplainFormat",
    "InvalidPathSegment",
    "LorebaseClient",
    "ProposalStatus",
    "SchemaFormat",
    "Text",
    "TraceMode",
    "UnexpectedAnswer",
    "Verdict",
    "error_from_response",
    "problem_of",
    "response_of",
]
