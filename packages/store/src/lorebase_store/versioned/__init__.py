"""The versioned rows: Domains, branches and the row versions a branch sees (`View`, `Segment`).

Internal to the store: other packages import from `lorebase_store`.
"""
