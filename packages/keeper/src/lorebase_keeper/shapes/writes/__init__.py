"""The JSON shapes of the writes routes (lorebase_keeper.routes.writes)."""
