"""The JSON shapes of the feed routes (lorebase_keeper.routes.feed)."""
