"""The read routes: records, queries, resolve, search, context, history, revisions, health,
audit and the operation catalog."""
