"""The routes of the change feed and of webhook subscriptions."""
