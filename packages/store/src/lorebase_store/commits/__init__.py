"""The commit path: a change set becomes one Revision, with its statistics, in one transaction.

Internal to the store: other packages import from `lorebase_store`.
"""
