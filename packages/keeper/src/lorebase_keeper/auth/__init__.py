"""Who a request comes from and what it may do: keys, browser sessions and CSRF, OIDC, loopback
mode, roles and read scope, rate limits."""
