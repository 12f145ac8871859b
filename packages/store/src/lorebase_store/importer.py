"""`lorebase import DIR`: a schema plus data files into a Domain as one Revision (origin import).

Layout of DIR (docs/import.md):

    schema.yaml              the Domain's schema
    import.yaml              optional: domain, author, message, time, origin_ref
    data/<Kind>.csv|.jsonl   one file per Kind: a row per Record
    data/<relation>.csv|.jsonl   one file per Relation: from, to and Link Attributes
    revisions/*.yaml         optional follow-up change sets, replayed after the first import

Files are streamed row by row into the commit's batches, so memory does not grow with their size.
Every problem names the file, the line and the Attribute; any problem and nothing is written.

Importing again into an existing Domain compares what the folder means (its data and its
follow-up change sets, read into a scratch database) with the branch's head and commits only the
differences (new and changed Records and Links; nothing is deleted because it is absent from a
file). The same folder twice changes nothing. A difference whose current value an Operation or a
merge set since (not the folder's own Revisions) is refused (`ImportOverwrites`) unless
`overwrite` is given.
"""

from __future__ import annotations

import csv
import json
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from lorebase_core.changes import Change, Origin, UpsertLink, UpsertRecord, parse_changes
from lorebase_core.errors import (
    ImportInvalid,
    ImportOverwrites,
    InvalidInput,
    Issue,
    RecordNotFound,
    SchemaInvalid,
    ValuesInvalid,
)
from lorebase_core.schema import Schema, load_schema, parse_yaml
from lorebase_store.commits.commit import CommitRequest
from lorebase_store.reads.reader import Reader
from lorebase_store.results import CommitResult, LinkVersion, RecordVersion, RevisionInfo
from lorebase_store.store import Store

DATA_SUFFIXES = (".csv", ".jsonl")
_MANIFEST_MEMBERS = {"domain", "author", "message", "time", "origin_ref", "default_branch"}
_REVISION_MEMBERS = {"message", "author", "time", "origin", "changes"}


@dataclass(frozen=True)
class Overwrite:
    """A value set since the folder was imported that importing it again replaces.

    `attribute` is None for a Record or Link deleted since (importing would make it again).
    """

    ref: str
    attribute: str | None
    current: Any
    imported: Any
    revision: RevisionInfo

    def to_json(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "attribute": self.attribute,
            "current": self.current,
            "imported": self.imported,
            "revision": self.revision.id,
            "origin": {"type": self.revision.origin_type, "ref": self.revision.origin_ref},
            "author": self.revision.author,
            "message": self.revision.message,
        }


@dataclass(frozen=True, kw_only=True)
class ImportResult:
    domain: str
    created: bool
    skipped: bool
    revisions: list[RevisionInfo] = field(default_factory=list)
    changes: int = 0
    overwritten: list[Overwrite] = field(default_factory=list)
    """Values set since by Operations or merges that this import replaced (with `overwrite`)."""


@dataclass(frozen=True, kw_only=True)
class _Manifest:
    domain: str
    author: str
    message: str
    time: str | None
    origin_ref: str
    default_branch: str


@dataclass(frozen=True)
class _Limits:
    """The limits of an import's commits (the `CommitRequest` fields of the same names)."""

    batch_size: int
    max_issues: int
    changed_keys_max: int


def import_directory(
    store: Store,
    directory: Path,
    *,
    author: str | None = None,
    message: str | None = None,
    branch: str | None = None,
    create_only: bool = False,
    overwrite: bool = False,
    batch_size: int = 1000,
    max_issues: int = 1000,
    changed_keys_max: int = 100,
) -> ImportResult:
    """Import DIR into its Domain (created when new), or bring the Domain back to what DIR means.

    Raises:
        ImportInvalid: listing every problem of the folder; nothing is written.
        ImportOverwrites: importing again would replace values set since by Operations or
            merges (listed), and `overwrite` is false; nothing is written.
    """
    directory = directory.resolve()
    schema = _read_schema(directory)
    manifest = _read_manifest(directory, schema, author, message)
    exists = store.has_domain(manifest.domain)
    if exists and create_only:
        return ImportResult(domain=manifest.domain, created=False, skipped=True)
    limits = _Limits(batch_size, max_issues, changed_keys_max)
    if exists:
        return _import_again(
            store, directory, schema, manifest, branch=branch, overwrite=overwrite, limits=limits
        )
    return _import_first(store, directory, schema, manifest, branch=branch, limits=limits)


def _import_first(
    store: Store,
    directory: Path,
    schema: Schema,
    manifest: _Manifest,
    *,
    branch: str | None,
    limits: _Limits,
) -> ImportResult:
    """The import that creates the Domain: the data files as one Revision, then `revisions/`."""
    files = _data_files(directory, schema)
    request = replace(
        _import_request(manifest, branch, schema, limits),
        created_at=manifest.time,
        duplicates="refuse",
        create_domain=True,
        default_branch=manifest.default_branch,
    )
    result = _commit_import(store, directory, request, _changes(directory, files, schema))
    revisions = [result.revision] if result.revision else []
    changes = result.changes
    for revision in _replay(store, directory, manifest, branch, limits.changed_keys_max):
        revisions.append(revision)
        changes += revision.stats.get("changes", 0)
    return ImportResult(
        domain=manifest.domain, created=True, skipped=False, revisions=revisions, changes=changes
    )


def _read_schema(directory: Path) -> Schema:
    path = directory / "schema.yaml"
    if not path.is_file():
        raise ImportInvalid(
            f"{directory} has no schema.yaml", [Issue("schema.yaml", "file not found", "missing")]
        )
    try:
        return load_schema(path.read_text(encoding="utf-8"))
    except SchemaInvalid as exc:
        raise ImportInvalid(
            f"schema.yaml has {len(exc.issues)} problem(s)",
            [
                Issue(f"schema.yaml {issue.path}".strip(), issue.message, issue.code)
                for issue in exc.issues
            ],
        ) from exc


def _read_yaml_mapping(path: Path, label: str) -> dict[str, Any]:
    try:
        document = parse_yaml(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ImportInvalid(f"{label} is not valid YAML", [Issue(label, str(exc), "yaml")]) from exc
    if not isinstance(document, dict):
        raise ImportInvalid(f"{label} must be a mapping", [Issue(label, "expected a mapping")])
    return document


def _read_manifest(
    directory: Path, schema: Schema, author: str | None, message: str | None
) -> _Manifest:
    path = directory / "import.yaml"
    document = _read_yaml_mapping(path, "import.yaml") if path.is_file() else {}
    issues = [
        Issue(f"import.yaml {member}", "unknown member", "unknown")
        for member in sorted(set(document) - _MANIFEST_MEMBERS)
    ]
    domain = str(document.get("domain", schema.domain.name))
    if domain != schema.domain.name:
        issues.append(
            Issue(
                "import.yaml domain",
                f"{domain!r} differs from the schema's domain.name {schema.domain.name!r}",
            )
        )
    if issues:
        raise ImportInvalid("import.yaml has problems", issues)
    return _Manifest(
        domain=domain,
        author=author or str(document.get("author", "importer")),
        message=message or str(document.get("message", f"Import {directory.name}")),
        time=str(document["time"])
        if "time" in document and author is None and message is None
        else None,
        origin_ref=str(document.get("origin_ref", directory.name)),
        default_branch=str(document.get("default_branch", "main")),
    )


def _data_files(directory: Path, schema: Schema) -> list[Path]:
    data = directory / "data"
    if not data.is_dir():
        raise ImportInvalid(
            f"{directory} has no data folder", [Issue("data", "folder not found", "missing")]
        )
    issues: list[Issue] = []
    kinds: list[Path] = []
    relations: list[Path] = []
    stems: dict[str, Path] = {}
    for path in sorted(data.iterdir()):
        label = f"data/{path.name}"
        if path.suffix not in DATA_SUFFIXES:
            issues.append(Issue(label, "data files are .csv or .jsonl", "file.type"))
        elif path.stem in stems:
            issues.append(
                Issue(
                    label,
                    f"data/{stems[path.stem].name} holds the same {path.stem}",
                    "file.duplicate",
                )
            )
        elif path.stem in schema.kinds:
            kinds.append(path)
        elif path.stem in schema.relations:
            relations.append(path)
        else:
            issues.append(
                Issue(
                    label,
                    f"{path.stem!r} is neither a Kind nor a Relation of the schema",
                    "file.unknown",
                )
            )
        stems.setdefault(path.stem, path)
    for path in kinds + relations:
        issues.extend(_check_header(path, schema))
    if issues:
        raise ImportInvalid(
            f"The data folder has {len(issues)} problem(s); nothing was written", issues
        )
    return kinds + relations


def _check_header(path: Path, schema: Schema) -> list[Issue]:
    if path.suffix != ".csv":
        return []
    with path.open(newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle), None)
    label = f"data/{path.name}:1"
    if not header:
        return [Issue(label, "the file is empty; it needs a header row", "file.header")]
    if path.stem in schema.kinds:
        known = set(schema.kinds[path.stem].attributes)
    else:
        known = set(schema.relations[path.stem].attributes) | {"from", "to"}
        missing = {"from", "to"} - set(header)
        if missing:
            return [
                Issue(
                    label,
                    f"a Relation file needs the columns from and to (missing: {', '.join(sorted(missing))})",
                    "file.header",
                )
            ]
    problems = [
        Issue(
            f"{label} {column}",
            f"column {column!r} is not an Attribute of {path.stem}",
            "attribute.unknown",
        )
        for column in header
        if column not in known
    ]
    duplicated = sorted({column for column in header if header.count(column) > 1})
    problems += [
        Issue(f"{label} {column}", "the column appears more than once", "file.header")
        for column in duplicated
    ]
    return problems


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any], bool]]:
    """(line, values, from_text) for each row of a data file."""
    label = f"data/{path.name}"
    with path.open(newline="", encoding="utf-8") as handle:
        if path.suffix == ".csv":
            reader = csv.DictReader(handle)
            for row in reader:
                yield reader.line_num, dict(row), True
            return
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                document = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ImportInvalid(
                    f"{label} is not JSON lines", [Issue(f"{label}:{number}", exc.msg, "json")]
                ) from exc
            if not isinstance(document, dict):
                raise ImportInvalid(
                    f"{label} is not JSON lines",
                    [Issue(f"{label}:{number}", "expected a JSON object", "json")],
                )
            yield number, document, False


def _changes(directory: Path, files: list[Path], schema: Schema) -> Iterator[Change]:
    for path in files:
        label = f"data/{path.name}"
        is_kind = path.stem in schema.kinds
        for line, values, from_text in _rows(path):
            source = f"{label}:{line}"
            if is_kind:
                yield UpsertRecord(
                    path.stem, None, values, replace=True, from_text=from_text, source=source
                )
                continue
            from_key, to_key = values.pop("from", None), values.pop("to", None)
            yield UpsertLink(
                path.stem,
                "" if from_key is None else str(from_key),
                "" if to_key is None else str(to_key),
                values,
                replace=True,
                from_text=from_text,
                source=source,
            )


def _replay(
    store: Store, directory: Path, manifest: _Manifest, branch: str | None, changed_keys_max: int
) -> Iterator[RevisionInfo]:
    folder = directory / "revisions"
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.yaml")):
        label = f"revisions/{path.name}"
        document = _read_yaml_mapping(path, label)
        issues = [
            Issue(f"{label} {member}", "unknown member", "unknown")
            for member in sorted(set(document) - _REVISION_MEMBERS)
        ]
        origin = document.get("origin") or {}
        if not isinstance(origin, dict) or origin.get("type") not in {
            "import",
            "operation",
            "merge",
            "extraction",
            "source_sync",
        }:
            issues.append(
                Issue(
                    f"{label} origin",
                    "expected {type: import|operation|merge|extraction|source_sync, ref: ...}",
                )
            )
        try:
            changes = parse_changes(document.get("changes"), f"{label} changes")
        except InvalidInput as exc:
            issues.extend(exc.issues)
            changes = []
        if issues:
            raise ImportInvalid(f"{label} has problems", issues)
        request = CommitRequest(
            domain=manifest.domain,
            branch=branch,
            author=str(document.get("author", manifest.author)),
            message=str(document.get("message", path.stem)),
            origin=Origin(origin["type"], origin.get("ref")),
            created_at=str(document["time"]) if "time" in document else None,
            changed_keys_max=changed_keys_max,
        )
        try:
            result = store.commit(request, changes)
        except ValuesInvalid as exc:
            raise ImportInvalid(f"{label} was refused", exc.issues) from exc
        if result.revision is not None:
            yield result.revision


# -- importing again ----------------------------------------------------------------------------

_PAGE = 1000


def _import_again(
    store: Store,
    directory: Path,
    schema: Schema,
    manifest: _Manifest,
    *,
    branch: str | None,
    overwrite: bool,
    limits: _Limits,
) -> ImportResult:
    """Commit what differs between the folder's meaning and the branch's head, as one Revision.

    The folder is imported into a scratch SQLite database first (the same checks as a first
    import, and its follow-up change sets replayed), so what it means is exactly what a first
    import would have made; then its Records and Links are compared with the head.
    """
    with (
        _scratch_import(directory, schema, limits) as (scratch, meant),
        scratch.reader(manifest.domain) as folder,
        store.reader(manifest.domain, branch=branch) as head,
    ):
        own = _FolderRevisions(meant.revisions)
        changes, overwrites = _differences(folder, head, schema, own)
        head_revision = head.revision
    if overwrites and not overwrite:
        shown = overwrites[: limits.max_issues]
        raise ImportOverwrites(
            f"Importing {directory.name} again would overwrite {len(overwrites)} value(s) set "
            "since by Operations or merges; nothing was written. Import with --overwrite "
            "(overwrite=true) to replace them with the folder's values",
            overwrites=[entry.to_json() for entry in shown],
        )
    # what was compared is what is written over
    request = replace(
        _import_request(manifest, branch, schema, limits), expected_head=head_revision
    )
    result = _commit_import(store, directory, request, changes)
    return ImportResult(
        domain=manifest.domain,
        created=False,
        skipped=False,
        revisions=[result.revision] if result.revision else [],
        changes=result.changes,
        overwritten=overwrites,
    )


@contextmanager
def _scratch_import(
    directory: Path, schema: Schema, limits: _Limits
) -> Iterator[tuple[Store, ImportResult]]:
    """The folder imported as a first import would be, into a scratch SQLite database that is
    closed and removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="lorebase-import-") as scratch_folder:
        scratch = Store.open(f"sqlite:///{Path(scratch_folder) / 'folder.sqlite'}")
        try:
            yield (
                scratch,
                _import_first(
                    scratch,
                    directory,
                    _without_unique_rules(directory),
                    _read_manifest(directory, schema, None, None),  # the folder's own authors
                    branch=None,
                    limits=limits,
                ),
            )
        finally:
            scratch.close()


def _import_request(
    manifest: _Manifest, branch: str | None, schema: Schema, limits: _Limits
) -> CommitRequest:
    """An import's commit: origin import, the manifest's author and message, and the limits."""
    return CommitRequest(
        domain=manifest.domain,
        branch=branch,
        author=manifest.author,
        message=manifest.message,
        origin=Origin("import", manifest.origin_ref),
        schema=schema,
        batch_size=limits.batch_size,
        max_issues=limits.max_issues,
        changed_keys_max=limits.changed_keys_max,
    )


def _commit_import(
    store: Store, directory: Path, request: CommitRequest, changes: Iterable[Change]
) -> CommitResult:
    """Commit an import's changes; a refusal names the folder (`ImportInvalid`)."""
    try:
        return store.commit(request, changes)
    except ValuesInvalid as exc:
        raise ImportInvalid(
            f"Import of {directory.name} refused: {len(exc.issues)} problem(s); nothing was written",
            exc.issues,
        ) from exc


def _without_unique_rules(directory: Path) -> Schema:
    """The folder's schema without `unique`, for the scratch import: a Domain may hold
    duplicates from before a unique rule, and the commit checks the unique values it sets."""
    document = parse_yaml((directory / "schema.yaml").read_text(encoding="utf-8"))
    for kind in (document.get("kinds") or {}).values():
        for attribute in (kind.get("attributes") or {}).values():
            if isinstance(attribute, dict):
                attribute.pop("unique", None)
    return load_schema(json.dumps(document, default=str))


class _FolderRevisions:
    """Whether a Revision is the folder's own: an import, or one of its follow-up change sets
    (same origin, author and message as the scratch import made)."""

    def __init__(self, revisions: list[RevisionInfo]) -> None:
        self._signatures = {_signature(revision) for revision in revisions}

    def __contains__(self, revision: RevisionInfo) -> bool:
        return revision.origin_type == "import" or _signature(revision) in self._signatures


def _signature(revision: RevisionInfo) -> tuple[str, str | None, str, str]:
    return (revision.origin_type, revision.origin_ref, revision.author, revision.message)


def _differences(
    folder: Reader, head: Reader, schema: Schema, own: _FolderRevisions
) -> tuple[list[Change], list[Overwrite]]:
    """The patches that bring the head to the folder's Records and Links, and which of them
    replace a value that a Revision other than the folder's set."""
    changes: list[Change] = []
    overwrites: list[Overwrite] = []
    for kind_name, kind in schema.kinds.items():
        stored = sorted(name for name, attr in kind.attributes.items() if attr.derived is None)
        for meant in _records(folder, kind_name):
            current = head.get_record(kind_name, meant.key)
            wanted = {name: meant.values.get(name) for name in stored}
            if current is None:
                changes.append(UpsertRecord(kind_name, meant.key, _present(wanted)))
                overwrites.extend(_deleted_since(head, f"{kind_name}/{meant.key}", wanted, own))
                continue
            differ = {
                name: value for name, value in wanted.items() if current.values.get(name) != value
            }
            if differ:
                changes.append(UpsertRecord(kind_name, meant.key, differ))
                overwrites.extend(_record_overwrites(head, current, differ, own))
    for relation_name, relation in schema.relations.items():
        stored = sorted(name for name, attr in relation.attributes.items() if attr.derived is None)
        for meant_link in _links(folder, relation_name):
            ref = f"{relation_name}:{meant_link.from_key}->{meant_link.to_key}"
            found = head.links(
                relation_name, from_key=meant_link.from_key, to_key=meant_link.to_key, limit=1
            )
            wanted = {name: meant_link.values.get(name) for name in stored}
            args = (relation_name, meant_link.from_key, meant_link.to_key)
            if not found:
                changes.append(UpsertLink(*args, _present(wanted)))
                continue
            differ = {
                name: value for name, value in wanted.items() if found[0].values.get(name) != value
            }
            if differ:
                changes.append(UpsertLink(*args, differ))
                setter = head.revision_info(found[0].revision)
                if setter not in own:
                    overwrites.extend(
                        Overwrite(ref, name, found[0].values.get(name), value, setter)
                        for name, value in differ.items()
                    )
    return changes, overwrites


def _present(values: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}


def _record_overwrites(
    head: Reader, current: RecordVersion, differ: dict[str, Any], own: _FolderRevisions
) -> list[Overwrite]:
    ref = f"{current.kind}/{current.key}"
    pks = {name: current.provenance.get(name) for name in differ}
    setters = head.revisions([pk for pk in pks.values() if pk is not None])
    found: list[Overwrite] = []
    for name, value in differ.items():
        pk = pks[name]
        # a value cleared leaves no provenance: the Record's last change cleared it
        setter = setters[pk] if pk is not None else head.revision_info(current.revision)
        if setter not in own:
            found.append(Overwrite(ref, name, current.values.get(name), value, setter))
    return found


def _deleted_since(
    head: Reader, ref: str, wanted: dict[str, Any], own: _FolderRevisions
) -> list[Overwrite]:
    """The deletion of a Record the folder holds, when a Revision not the folder's made it."""
    kind, key = ref.split("/", 1)
    try:
        page = head.history(kind, key, limit=1, cursor=None, with_values=False)
    except RecordNotFound:
        return []
    if not page.entries or page.entries[0].change != "deleted":
        return []
    setter = page.entries[0].revision
    return [] if setter in own else [Overwrite(ref, None, None, _present(wanted), setter)]


def _records(reader: Reader, kind: str) -> Iterator[RecordVersion]:
    after: str | None = None
    while True:
        page = reader.records(kind, limit=_PAGE, after_key=after)
        yield from page
        if len(page) < _PAGE:
            return
        after = page[-1].key


def _links(reader: Reader, relation: str) -> Iterator[LinkVersion]:
    """Every Link of a Relation, by from key then to key (one Record's Links paged apart)."""
    after: str | None = None
    while True:
        page = reader.links(relation, limit=_PAGE, after=after)
        if len(page) < _PAGE:
            yield from page
            return
        last = page[-1].from_key
        yield from (link for link in page if link.from_key != last)
        to_after: str | None = None
        while True:
            group = reader.links(relation, from_key=last, limit=_PAGE, after=to_after)
            yield from group
            if len(group) < _PAGE:
                break
            to_after = group[-1].to_key
        after = last
