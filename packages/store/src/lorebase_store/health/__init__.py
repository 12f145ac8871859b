"""The health of the data at one View (docs/health.md): the report, its checks, its Relations.

Internal to the store: other packages import from `lorebase_store`.
"""
