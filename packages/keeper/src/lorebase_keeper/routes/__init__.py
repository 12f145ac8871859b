"""Keeper's routes, one module per resource."""
