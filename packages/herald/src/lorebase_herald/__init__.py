"""Lorebase Herald: Keeper's reads and Operations as MCP tools, for any agent (docs/mcp.md).

```python
from mcp import Client
from lorebase_herald import Herald
from lorebase_platform import load_settings

herald = Herald(load_settings())
async with Client(herald.mcp) as client:
    answer = await client.call_tool("lorebase_record", {"domain": "supply", "kind": "Supplier",
                                                         "key": "S-1001"})
```

Herald reaches Keeper only through `lorebase_client`, with the caller's rights, and never calls
a model. `lorebase-herald` (cli.py) serves it over stdio or Streamable HTTP (http.py).
"""

from lorebase_herald.answers import Scope, ToolAnswer, ToolProblem
from lorebase_herald.http import http_app
from lorebase_herald.server import INSTRUCTIONS, Herald
from lorebase_herald.tools import READ_TOOLS, WRITE_TOOLS

__all__ = [
    "INSTRUCTIONS",
    "READ_TOOLS",
    "WRITE_TOOLS",
    "Herald",
    "Scope",
    "ToolAnswer",
    "ToolProblem",
    "http_app",
]
