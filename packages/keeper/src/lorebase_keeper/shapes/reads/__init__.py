"""The JSON shapes of the reads routes (lorebase_keeper.routes.reads)."""
