"""The routes of sessions, OIDC sign-in, principals and rate classes."""
