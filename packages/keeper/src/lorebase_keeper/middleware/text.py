"""Text that cannot be stored or digested is refused at the door: 422 `invalid-text`.

Python strings may hold lone UTF-16 surrogates (JSON's `"\\ud800"`), which no UTF-8 encoder
accepts: the request digests, commits and search indexes would fail on them with a 500.
PostgreSQL text cannot hold NUL characters (`"\\u0000"`), and bytes that are not UTF-8 (in a
body, a percent-encoded path segment or query string) would be silently replaced by U+FFFD and
read as another name. So every request is checked before a route runs:

- JSON bodies (buffered by `BodyLimit`): a cheap look at the bytes first (valid UTF-8 and no
  `\\u` escape of a surrogate or NUL: the end of it for nearly every request), then a walk of
  the parsed document naming every offending string, member names included, by its JSON path
  (`where.and[0].value`).
- The path, segment by segment (`path[7]` is the eighth segment after the first `/`), and the
  query string, parameter by parameter (the path is the parameter's name: `at`, `cursor`).
- The headers that reach the store or a digest (`Idempotency-Key`, the credential): no NUL,
  UTF-8 only.

Valid surrogate pairs (`"\\ud83d\\ude00"`) are one character (U+1F600) and fine text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from urllib.parse import unquote_to_bytes

from starlette.types import ASGIApp, Receive, Scope, Send

from lorebase_core.errors import MAX_ISSUES, InvalidText, Issue, shortened
from lorebase_keeper.http.errors import send_error

# `\u0000` and surrogate escapes that are not a high-low pair (`\ud83d\ude00` is fine text);
# an escaped backslash before one (`\\ud800`) matches too and the walk finds it harmless
_SUSPECT_ESCAPE = re.compile(
    rb"\\u0000"
    rb"|\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
_BAD_CHARACTER = re.compile("[\x00\ud800-\udfff]")
# bytes that are not UTF-8 become U+DC80-U+DCFF when decoded with `surrogateescape`
_ESCAPED_BYTE = range(0xDC80, 0xDD00)

CHECKED_HEADERS = (b"idempotency-key", b"authorization", b"x-api-key")


def _shown(text: str) -> str:
    """`text` with what cannot be printed written as escapes (`\\ud800`, `\\u0000`, `\\xff`)."""

    def escape(match: re.Match[str]) -> str:
        code = ord(match.group())
        return f"\\x{code - 0xDC00:02x}" if code in _ESCAPED_BYTE else f"\\u{code:04x}"

    return _BAD_CHARACTER.sub(escape, text)


def _problem(text: str, *, raw_bytes: bool) -> tuple[str, str] | None:
    """(message, code) of the first offending character of `text`, None when it is fine."""
    found = _BAD_CHARACTER.search(text)
    if found is None:
        return None
    code = ord(found.group())
    if code == 0:
        return "holds the NUL character (U+0000), which text may not contain", "nul"
    if raw_bytes and code in _ESCAPED_BYTE:
        return "holds bytes that are not UTF-8; send text encoded as UTF-8", "invalid-utf8"
    return (
        f"holds a lone UTF-16 surrogate (U+{code:04X}); a surrogate must be half of a pair",
        "lone-surrogate",
    )


def _strings(document: object) -> Iterator[tuple[str, str, bool]]:
    """(path, text, is_member_name) of every string in a parsed JSON document.

    A loop over a stack, not recursion: a document as deep as the JSON parser allows must not
    overflow this walk either. The order does not matter: `InvalidInput` sorts its issues.
    """
    pending: list[tuple[str, object]] = [("", document)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, str):
            yield path, value, False
        elif isinstance(value, dict):
            for name, member in value.items():
                shown = shortened(_shown(name))
                member_path = f"{path}.{shown}" if path else shown
                yield member_path, name, True
                pending.append((member_path, member))
        elif isinstance(value, list):
            pending.extend((f"{path}[{index}]", item) for index, item in enumerate(value))


def is_json(scope: Scope) -> bool:
    """Whether the body is read as JSON: no Content-Type, or a JSON one (`application/json`,
    `application/merge-patch+json` ...); other bodies (uploads) are not text to check."""
    headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
    for name, value in headers:
        if name.lower() == b"content-type":
            return value.split(b";", 1)[0].strip().lower().endswith(b"json")
    return True


def body_issues(body: bytes) -> list[Issue]:
    """The offending strings of a JSON body, by path; empty for a fine or a non-JSON body.

    A body that does not parse is left to the route (400 `malformed-json`), unless it is not
    UTF-8 at all.
    """
    if not body:
        return []
    raw_bytes = False
    if not body.isascii():
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            raw_bytes = True
    if not raw_bytes and _SUSPECT_ESCAPE.search(body) is None:
        return []
    try:
        document = json.loads(body.decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError):
        if raw_bytes:
            return [Issue("", "the body is not UTF-8 text", "invalid-utf8")]
        return []
    issues: list[Issue] = []
    for path, text, is_name in _strings(document):
        found = _problem(text, raw_bytes=raw_bytes)
        if found is None:
            continue
        message, code = found
        issues.append(Issue(path, f"the member name {message}" if is_name else message, code))
        if len(issues) == MAX_ISSUES:
            break
    return issues


def _url_text_issue(path: str, part: bytes, what: str) -> Issue | None:
    try:
        text = unquote_to_bytes(part).decode("utf-8")
    except UnicodeDecodeError:
        return Issue(
            path, f"{what} holds bytes that are not UTF-8 once percent-decoded", "invalid-utf8"
        )
    if "\x00" in text:
        return Issue(
            path, f"{what} holds the NUL character (%00), which text may not contain", "nul"
        )
    return None


def _suspect(part: bytes) -> bool:
    return b"%" in part or not part.isascii()


def path_issues(raw_path: bytes) -> list[Issue]:
    """Segments of a raw path that are not UTF-8 or hold NUL once percent-decoded."""
    if not _suspect(raw_path):
        return []
    segments = raw_path.split(b"?", 1)[0].split(b"/")[1:]
    found = (
        _url_text_issue(f"path[{index}]", segment, f"path segment {index}")
        for index, segment in enumerate(segments)
        if _suspect(segment)
    )
    return [issue for issue in found if issue is not None]


def query_issues(query_string: bytes) -> list[Issue]:
    """Parameters of a query string whose name or value is not UTF-8 or holds NUL."""
    if not _suspect(query_string):
        return []
    issues: list[Issue] = []
    for pair in query_string.replace(b"+", b" ").split(b"&"):
        name, _, value = pair.partition(b"=")
        shown = shortened(_shown(unquote_to_bytes(name).decode("utf-8", "surrogateescape")))
        for part, what in ((name, "the parameter name"), (value, "the value")):
            issue = _url_text_issue(shown, part, what) if _suspect(part) else None
            if issue is not None:
                issues.append(issue)
    return issues


def header_issues(headers: list[tuple[bytes, bytes]]) -> list[Issue]:
    """The checked headers holding NUL or bytes that are not UTF-8."""
    issues: list[Issue] = []
    for name, value in headers:
        if name.lower() not in CHECKED_HEADERS or (value.isascii() and b"\x00" not in value):
            continue
        shown = name.decode("latin-1")
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError:
            issues.append(Issue(shown, "the header holds bytes that are not UTF-8", "invalid-utf8"))
            continue
        if "\x00" in text:
            issues.append(Issue(shown, "the header holds the NUL character", "nul"))
    return issues


def invalid_text(issues: list[Issue], where: str) -> InvalidText:
    """The error answered for `issues` found in `where` (the body, the path ...)."""
    # the walk of a body stops at MAX_ISSUES, and a problem document lists no more
    more = " (the first ones)" if len(issues) >= MAX_ISSUES else ""
    return InvalidText(
        f"{len(issues)} string(s) in {where}{more} are not valid text: lone UTF-16 surrogates, "
        "NUL characters and bytes that are not UTF-8 are refused; send Unicode text as UTF-8",
        issues,
    )


class ValidText:
    """Pure ASGI middleware: 422 `invalid-text` for a path, query string or header that holds
    bytes that are not UTF-8 or NUL (bodies are checked by `BodyLimit`, which buffers them)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            raw_path = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogatepass")
            issues = [
                *path_issues(raw_path),
                *query_issues(scope.get("query_string", b"")),
                *header_issues(scope.get("headers", [])),
            ]
            if issues:
                await send_error(
                    scope, receive, send, invalid_text(issues, "the path, query string or headers")
                )
                return
        await self.app(scope, receive, send)
