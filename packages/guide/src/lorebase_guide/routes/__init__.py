"""Guide's routes, one module per endpoint family."""
