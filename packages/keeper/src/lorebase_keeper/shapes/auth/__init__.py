"""The JSON shapes of the auth routes (lorebase_keeper.routes.auth)."""
