"""Revision-stamped reads: the Reader a route starts with, answers and their caches, coverage,
context packs, explanations, health reports, the schema's forms."""
