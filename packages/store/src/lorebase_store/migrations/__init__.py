"""Alembic migrations of the store; `lorebase_store.migrate.upgrade` runs them."""
