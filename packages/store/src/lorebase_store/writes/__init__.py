"""The write side: `Writes`, Operation executions, task branches, Proposals, merges and the audit log.

Internal to the store: other packages import from `lorebase_store`.
"""
