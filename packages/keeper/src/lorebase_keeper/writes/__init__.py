"""Writes through Operations and Proposals: executing (the request checked, direct writes, dry
runs), the agent flow (review-required, task branches, Proposals, automatic merges), agent
writes' settings, write scope, the operation catalog, Proposals' scope and shapes. The bodies
they answer are typed in `shapes.writes`."""
