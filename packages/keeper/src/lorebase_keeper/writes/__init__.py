"""Writes through Operations and Proposals: executing (the request checked, direct writes, dry
runs), the agent flow (review-required, task branches, Proposals, automatic merges), the typed
bodies they answer, agent writes' settings, write scope, the operation catalog, Proposals' scope
and shapes."""
