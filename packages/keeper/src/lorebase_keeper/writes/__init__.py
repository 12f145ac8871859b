"""Writes through Operations and Proposals: executing (direct, dry run, review-required and the
agent flow), write scope, Proposals' scope and shapes."""
