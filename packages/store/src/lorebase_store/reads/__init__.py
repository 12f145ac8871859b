"""Reads at one View: the `Reader`, Records and Links, history, diff, queries, context packs, resolve.

Internal to the store: other packages import from `lorebase_store`.
"""
