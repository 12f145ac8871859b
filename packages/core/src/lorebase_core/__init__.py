"""Lorebase core: schema as code, value types and canonical forms, change sets, errors.

No database or network I/O; the one file it touches is the CLI's profiles file (profiles_file),
which the client and the demo share.

Other packages import `lorebase_core`, the public modules and the front doors of the public
subpackages below, never a module inside a subpackage (`lorebase_core.schema`, not
`lorebase_core.schema.model`). An import-linter contract (`core-front-door`) and
`tests/test_front_door.py` check it.

| public module | holds |
| --- | --- |
| `errors` | every error class by its problem code (one registry), `Issue`, `quoted` |
| `schema` | schema as code: the document model, its loader and its look-ups |
| `values` | value types of Attributes and their canonical forms |
| `records` | Record and Link values checked against a schema, in canonical form |
| `refs` | Record keys and references (`Supplier/S-1001`) |
| `changes` | change sets: what one commit does to Records and Links |
| `access` | `ReadScope`: what one caller may read of one Domain on one branch |
| `query` | the query DSL of POST /query: parsing, the model, page cursors |
| `search_request`, `search_text` | POST /search: the request, and what its text asks for |
| `graph_requests` | the requests of POST /traverse and POST /neighborhood |
| `context` | context packs: the request, lenses and Traits, sections, the budget |
| `resolve` | grounding a question's words in a Domain's schema and values |
| `operations`, `operation_catalog` | Operations as change sets, and described for a caller |
| `proposal_policy` | what a Proposal needs before it merges |
| `sessions` | the shape of browser session ids and CSRF tokens |
| `addresses` | which network addresses are public unicast |
| `suggestions` | the closest names, for messages about unknown names |
| `markdown` | untrusted text in the Markdown written for models (Keeper, Herald, Guide) |
| `profiles_file` | the CLI's profiles file |

Private: `expressions` and `value_checks` (the schema, records and Operations use them), `members`
(reading the members of request documents), and every module inside `schema/`, `query/`,
`context/`, `resolve/` and `errors/`.
"""

from lorebase_core.changes import (
    Change,
    DeleteLink,
    DeleteRecord,
    Origin,
    UpsertLink,
    UpsertRecord,
    parse_changes,
)
from lorebase_core.refs import RecordRef
from lorebase_core.schema import Schema, load_schema

__all__ = [
    "Change",
    "DeleteLink",
    "DeleteRecord",
    "Origin",
    "RecordRef",
    "Schema",
    "UpsertLink",
    "UpsertRecord",
    "load_schema",
    "parse_changes",
]
