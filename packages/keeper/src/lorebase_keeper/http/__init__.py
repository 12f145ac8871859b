"""The HTTP frame every room uses: the server and its deadlines, problem documents, the OpenAPI
document, the web app's files, list cursors and the first checks of a request body.

Imports no other room of Keeper (core, platform and the store only)."""
