"""The agent trace and the read audit in the store (docs/storage.md, docs/trace.md).

| module | holds |
| --- | --- |
| `steps` | `TraceStep` and the types reads give back |
| `writing` | a batch of steps in one transaction, the cap under the session row's lock |
| `inferred` | steps without a session id placed in their client's sessions |
| `sessions` | the session list (summaries only) and a session's timeline |
| `pruning` | deleting old steps in chunks, lowering the session rows |
| `read_audit` | the read audit and a Domain's audit log of reads and writes |
"""
