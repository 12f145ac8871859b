"""Keeper's routes, one subpackage per room (auth, reads, writes, feed) and the trace's module.

Routes are the top of the house: they may import every room; no room imports a route."""
