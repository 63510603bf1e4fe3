"""``PMGSStore``: the read-only query API of a pmgs reference database.

One class answers every interface (Python, CLI, MCP) so that they cannot disagree. Rules it
keeps everywhere:

* The database is opened read-only (SQLite URI ``mode=ro`` and ``PRAGMA query_only``); no
  method writes, so the file's SHA-256 is the same before and after any number of queries.
* Arguments are checked before any SQL runs; a bad one is a :class:`PMGSQueryError` with a
  stable code and a message without paths, SQL or exception text.
* Nothing is guessed: an unknown code is a ``not_found`` record, an IPC code without a valid
  revision at the reference date is ``not_valid_at_release`` (never an older text), two valid
  revisions at once are ``MULTIPLE_ACTIVE_REVISIONS``.
* Every list is bounded (limit ≤ 200) and every response is at most 4 MiB of UTF-8 JSON.

The record shapes are in :mod:`pmgs_core.records`, the search strategy in
:mod:`pmgs_core.search`, database location rules in :mod:`pmgs_core.datadir`.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal, TypeVar, cast

from pmgs_core.datadir import (
    CurrentPointer,
    ResolvedDatabase,
    check_pointer_metadata,
    resolve_database,
)
from pmgs_core.errors import PMGSQueryError
from pmgs_core.notation import InvalidCodeError, InvalidSchemeError, parse_code, parse_ipc_version
from pmgs_core.records import (
    CONTENT_ROLE,
    EVIDENCE_NOTICE,
    Categories,
    ClassificationMatch,
    ClassificationRecord,
    ClassificationSearchHit,
    ClassificationSearchPage,
    CodeRef,
    CombinedSearchPage,
    DocumentListItem,
    DocumentListPage,
    DocumentMatch,
    DocumentPage,
    DocumentRef,
    DocumentSearchHit,
    DocumentSearchPage,
    DocumentSegment,
    HierarchyPage,
    HierarchySummary,
    LookupQuery,
    MatchStatus,
    PropertyItem,
    QuarantineItem,
    QuarantinePage,
    RelatedClassification,
    RelatedDocumentsRecord,
    RelationItem,
    ReleaseInfo,
    ReleaseRef,
    RevisionInfo,
    SearchMode,
    SearchTerm,
    SourceRef,
    TextItem,
    ThemeCategory,
    VersionInfo,
    ensure_response_size,
)
from pmgs_core.schema import DOCUMENT_KINDS, IPC_EDITIONS, SCHEMA_VERSION
from pmgs_core.search import (
    MAX_QUERY_CHARS,
    MAX_TERMS,
    QueryPlan,
    collect_groups,
    combine_modes,
    excerpt,
    plan_query,
)

__all__ = ["MAX_LIMIT", "PMGSStore"]

MAX_LIMIT: Final = 200
"""Upper bound of every ``limit`` argument (relations, hierarchy, search, segments)."""

SQLITE_MAX_INT: Final = 2**63 - 1
LOOKUP_DOCUMENT_LIMIT: Final = 50
"""Documents listed inside a lookup record; ``related_documents`` lists them all."""

_SCHEMES: Final[dict[str, str]] = {"fi": "fi", "ipc": "ipc", "fterm": "fterm", "f-term": "fterm"}
_SCHEMES_ALIASES: Final[dict[str, str]] = {**_SCHEMES, "f_term": "fterm"}
_LANGUAGES: Final = ("ja", "en")
_CONTENT_TYPES: Final = ("classification", "document")
Direction = Literal["parents", "children", "descendants"]
_DIRECTIONS: Final[dict[str, Direction]] = {
    "descendants": "descendants",
    "parents": "parents",
    "parent": "parents",
    "children": "children",
    "child": "children",
}
_MAX_DOCUMENT_ID_CHARS: Final = 512
_MAX_LOCATOR_CHARS: Final = 512
_FETCH_BATCH: Final = 64
_MAX_DEPTH: Final = 64
"""Deepest hierarchy walked; real trees are about 15 levels deep, so this only stops cycles."""
_ID_CHUNK: Final = 500

T = TypeVar("T")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_offset(value: object, name: str) -> int:
    """Offsets are checked in Python because SQLite would overflow or misread them."""
    if not _is_int(value) or not 0 <= cast(int, value) <= SQLITE_MAX_INT:
        raise PMGSQueryError(
            "INVALID_OFFSET",
            f"{name} must be an integer from 0 to {SQLITE_MAX_INT}",
            {"argument": name},
        )
    return cast(int, value)


def _check_limit(value: object, name: str) -> int:
    if not _is_int(value) or not 1 <= cast(int, value) <= MAX_LIMIT:
        raise PMGSQueryError(
            "INVALID_LIMIT",
            f"{name} must be an integer from 1 to {MAX_LIMIT}",
            {"argument": name, "max": MAX_LIMIT},
        )
    return cast(int, value)


def _check_language(language: object) -> str:
    if language not in _LANGUAGES:
        raise PMGSQueryError(
            "INVALID_LANGUAGE", "language must be 'ja' or 'en'", {"accepted": list(_LANGUAGES)}
        )
    return language


def _check_scheme(scheme: object) -> str:
    if isinstance(scheme, str):
        found = _SCHEMES_ALIASES.get(scheme.strip().lower())
        if found is not None:
            return found
    raise PMGSQueryError(
        "INVALID_SCHEME",
        "scheme must be one of fi, ipc, fterm",
        {"accepted": ["fi", "ipc", "fterm"]},
    )


def _check_schemes(schemes: object) -> list[str]:
    if schemes is None:
        return ["fi", "fterm", "ipc"]
    if isinstance(schemes, str):
        schemes = [schemes]
    if not isinstance(schemes, (list, tuple)) or not schemes:
        raise PMGSQueryError("INVALID_SCHEME", "schemes must be a non-empty list of fi, ipc, fterm")
    return sorted({_check_scheme(item) for item in schemes})


def _check_edition(scheme: str, edition: object) -> str | None:
    """IPC editions are normalised (``8u`` → ``8U``); FI and F-term have none."""
    if edition is None:
        return None
    if scheme != "ipc":
        raise PMGSQueryError(
            "INVALID_EDITION",
            "edition applies only to IPC; FI and F-term have a single edition",
        )
    if isinstance(edition, str):
        normalized = edition.strip().upper()
        if normalized in IPC_EDITIONS:
            return normalized
    raise PMGSQueryError(
        "INVALID_EDITION",
        "edition must be one of the IPC editions " + ", ".join(IPC_EDITIONS),
        {"accepted": list(IPC_EDITIONS)},
    )


def _check_kinds(kinds: object) -> list[str] | None:
    if kinds is None:
        return None
    if isinstance(kinds, str):
        kinds = [kinds]
    if (
        not isinstance(kinds, (list, tuple))
        or not kinds
        or any(kind not in DOCUMENT_KINDS for kind in kinds)
    ):
        raise PMGSQueryError(
            "INVALID_ARGUMENT",
            "document kinds must be a non-empty list of known document kinds",
            {"accepted": list(DOCUMENT_KINDS)},
        )
    return sorted(set(cast(Sequence[str], kinds)))


def _check_query(query: object) -> QueryPlan | None:
    if not isinstance(query, str):
        raise PMGSQueryError("INVALID_QUERY", "query must be a string")
    if len(query) > MAX_QUERY_CHARS:
        raise PMGSQueryError(
            "INVALID_QUERY",
            f"query is longer than {MAX_QUERY_CHARS} characters",
            {"max_chars": MAX_QUERY_CHARS},
        )
    plan = plan_query(query)
    if plan is not None and len(plan.terms) > MAX_TERMS:
        raise PMGSQueryError(
            "INVALID_QUERY", f"query has more than {MAX_TERMS} terms", {"max_terms": MAX_TERMS}
        )
    return plan


def _placeholders(count: int) -> str:
    return ",".join("?" * count)


def _valid_at(valid_from: str | None, valid_to: str | None, date: str) -> bool:
    """Validity windows are inclusive at both ends; NULL means unbounded (ISO dates compare
    as strings)."""
    return (valid_from is None or valid_from <= date) and (valid_to is None or date <= valid_to)


def _page_fields(count: int, limit: int, offset: int, shown: int) -> tuple[bool, int | None]:
    truncated = offset + shown < count
    return truncated, (offset + shown if truncated else None)


class PMGSStore:
    """Read-only access to one pmgs reference database; open it with :meth:`open`.

    Safe to share between threads: queries are serialised on one connection (each is a few
    milliseconds), which keeps a single read-only file handle per store.
    """

    def __init__(self, connection: sqlite3.Connection, resolved: ResolvedDatabase) -> None:
        """Use :meth:`open`; this constructor trusts that the connection is checked."""
        self._conn: sqlite3.Connection | None = connection
        self._resolved = resolved
        self._lock = threading.RLock()
        self._sources: dict[int, tuple[str, str]] = {}
        self._metadata = self._read_metadata(connection)
        release = connection.execute(
            "SELECT release_id, reference_date, source_manifest_sha256, attribution FROM release"
        ).fetchall()
        if len(release) != 1:
            raise PMGSQueryError("DATABASE_INVALID", "the database does not hold one release")
        self._release_id, self._reference_date, self._source_sha256, self._attribution = (
            str(release[0][0]),
            str(release[0][1]),
            str(release[0][2]),
            str(release[0][3]),
        )
        self._counts_cache: ReleaseInfo | None = None
        self._categories_cache: Categories | None = None

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        data_dir: str | os.PathLike[str] | None = None,
    ) -> PMGSStore:
        """Find the database in the contract's order and open it read-only.

        Order: ``path``; ``data_dir/state/current.json``; ``$PMGS_REFERENCE_DB``; the OS default
        data directory's pointer; its legacy ``data/current.sqlite`` only without a pointer.
        A pointer must agree with the database's metadata (release, source SHA-256, schema
        version); a schema version this code does not know is refused.
        """
        resolved = resolve_database(path, data_dir=data_dir)
        return cls._open_resolved(resolved)

    @classmethod
    def _open_resolved(cls, resolved: ResolvedDatabase) -> PMGSStore:
        uri = resolved.path.resolve().as_uri() + "?mode=ro"
        try:
            connection = sqlite3.connect(
                uri, uri=True, check_same_thread=False, isolation_level=None
            )
        except sqlite3.Error:
            raise PMGSQueryError("DATABASE_NOT_FOUND", "the database cannot be opened") from None
        try:
            connection.execute("PRAGMA query_only = 1")
            user_version = connection.execute("PRAGMA user_version").fetchone()[0]
            if user_version != SCHEMA_VERSION:
                raise PMGSQueryError(
                    "UNSUPPORTED_SCHEMA_VERSION",
                    f"the database has schema version {user_version}; this pmgs-core reads "
                    f"version {SCHEMA_VERSION}. Rebuild the database or upgrade pmgs-core",
                    {"found": user_version, "supported": [SCHEMA_VERSION]},
                )
            store = cls(connection, resolved)
            if store._metadata.get("schema_version") != str(SCHEMA_VERSION):
                raise PMGSQueryError(
                    "UNSUPPORTED_SCHEMA_VERSION",
                    "the database metadata names a schema version this pmgs-core cannot read",
                    {"supported": [SCHEMA_VERSION]},
                )
            if resolved.pointer is not None:
                check_pointer_metadata(resolved.pointer, store._metadata)
        except PMGSQueryError:
            connection.close()
            raise
        except sqlite3.Error:
            connection.close()
            raise PMGSQueryError(
                "DATABASE_INVALID", "the file is not a readable pmgs database"
            ) from None
        return store

    @staticmethod
    def _read_metadata(connection: sqlite3.Connection) -> dict[str, str]:
        return {
            str(key): str(value)
            for key, value in connection.execute("SELECT key, value FROM metadata")
        }

    def close(self) -> None:
        """Close the connection; later queries fail with ``STORE_CLOSED``."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> PMGSStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def database_path(self) -> Path:
        """The database file (for diagnostics on this machine; never put it in a response)."""
        return self._resolved.path

    @property
    def pointer(self) -> CurrentPointer | None:
        """The data directory pointer that named the database, if one did."""
        return self._resolved.pointer

    # ------------------------------------------------------------------ plumbing

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise PMGSQueryError("STORE_CLOSED", "the store has been closed")
        return self._conn

    def _rows(
        self, sql: str, params: Sequence[object] | Mapping[str, object] = ()
    ) -> list[tuple[Any, ...]]:
        try:
            return self._connection().execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise PMGSQueryError(
                "DATABASE_ERROR", "the database could not answer the query"
            ) from error

    def _one(self, sql: str, params: Sequence[object] = ()) -> tuple[Any, ...] | None:
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    def _stream(self, sql: str, params: Sequence[object]) -> Iterator[tuple[Any, ...]]:
        """Rows one batch at a time, so that a caller that stops early stops SQLite too."""
        try:
            cursor = self._connection().execute(sql, params)
            while batch := cursor.fetchmany(_FETCH_BATCH):
                yield from batch
            cursor.close()
        except sqlite3.Error as error:
            raise PMGSQueryError(
                "DATABASE_ERROR", "the database could not answer the query"
            ) from error

    def _locked(self, call: Callable[[], T]) -> T:
        with self._lock:
            result = call()
        ensure_response_size(result)
        return result

    def _check_release(self, release: object) -> None:
        if release in {"current", self._release_id}:
            return
        raise PMGSQueryError(
            "RELEASE_NOT_FOUND",
            "this database holds one release; use 'current' or its release id",
            {"available": ["current", self._release_id]},
        )

    def _release_ref(self) -> ReleaseRef:
        return {"release_id": self._release_id, "reference_date": self._reference_date}

    def _source(self, file_id: int, locator: str) -> SourceRef:
        cached = self._sources.get(file_id)
        if cached is None:
            row = self._one("SELECT path, sha256 FROM source_file WHERE id = ?", (file_id,))
            cached = (str(row[0]), str(row[1])) if row else ("", "")
            self._sources[file_id] = cached
        return {
            "file": cached[0],
            "file_sha256": cached[1],
            "locator": locator,
            "attribution": self._attribution,
        }

    # ------------------------------------------------------------------ concepts

    def _parse(self, scheme: str, code: object) -> tuple[str, str | None]:
        """The canonical code and the IPC version written into it, if any."""
        try:
            parsed = parse_code(scheme, cast(str, code))
        except InvalidSchemeError:  # pragma: no cover - scheme checked before
            raise PMGSQueryError("INVALID_SCHEME", "scheme must be one of fi, ipc, fterm") from None
        except InvalidCodeError as error:
            raise PMGSQueryError(
                "INVALID_CODE",
                f"not a valid {scheme} code; expected {error.expected}",
                {"reason": error.reason} if error.reason else None,
            ) from None
        return parsed.canonical, parsed.version

    def _find_concept(self, scheme: str, code: str, edition: str | None) -> tuple[Any, ...] | None:
        """(id, scheme, edition, code, kind, status, source_file_id, locator) or None.

        Without an edition, an IPC code is taken from the first edition in the contract's
        priority (8U, 8B, 7, 7E, 6, 5, 4) that defines it; reference-only records are used
        only when no edition defines it.
        """
        columns = "id, scheme, edition, code, kind, status, source_file_id, locator"
        if scheme != "ipc" or edition is not None:
            return self._one(
                f"SELECT {columns} FROM concept WHERE scheme = ? AND edition = ? AND code = ?",  # noqa: S608
                (scheme, edition or "", code),
            )
        # The edition list makes this a few seeks of the UNIQUE (scheme, edition, code) index
        # whatever the statistics say; there is no second index on code alone (ADR 0008).
        rows = self._rows(
            f"SELECT {columns} FROM concept WHERE scheme = 'ipc' "  # noqa: S608
            f"AND edition IN ({_placeholders(len(IPC_EDITIONS))}) AND code = ?",
            (*IPC_EDITIONS, code),
        )
        if not rows:
            return None
        priority = {name: index for index, name in enumerate(IPC_EDITIONS)}
        return min(
            rows, key=lambda row: (row[5] != "canonical", priority.get(row[2], len(priority)))
        )

    def _revisions(self, concept_id: int) -> list[tuple[Any, ...]]:
        """(id, version, valid_from, valid_to, level, sequence, source_file_id, locator)."""
        return self._rows(
            "SELECT id, version, valid_from, valid_to, level, sequence, source_file_id, locator "
            "FROM revision WHERE concept_id = ? ORDER BY valid_from IS NOT NULL, valid_from, "
            "version, id",
            (concept_id,),
        )

    def _active(self, revisions: list[tuple[Any, ...]], what: str) -> tuple[Any, ...] | None:
        """The one revision valid at the reference date, None if none; two is an error."""
        active = [row for row in revisions if _valid_at(row[2], row[3], self._reference_date)]
        if len(active) > 1:
            raise PMGSQueryError(
                "MULTIPLE_ACTIVE_REVISIONS",
                f"{what} has {len(active)} revisions valid at the reference date "
                f"{self._reference_date}; refusing to pick one",
                {"versions": [str(row[1]) for row in active]},
            )
        return active[0] if active else None

    def _version_infos(self, revisions: list[tuple[Any, ...]]) -> list[VersionInfo]:
        return [
            {
                "version": str(row[1]),
                "valid_from": row[2],
                "valid_to": row[3],
                "valid_at_release": _valid_at(row[2], row[3], self._reference_date),
            }
            for row in revisions
            if row[1]
        ]

    def _code_ref(self, row: Sequence[Any]) -> CodeRef:
        """From (scheme, edition, code, kind, status)."""
        return {
            "scheme": str(row[0]),
            "edition": row[1] or None,
            "code": str(row[2]),
            "kind": str(row[3]),
            "record_status": str(row[4]),
        }

    # ------------------------------------------------------------------ lookup

    def lookup(
        self,
        scheme: str,
        code: str,
        release: str = "current",
        edition: str | None = None,
        language: str = "ja",
        *,
        version: str | None = None,
        relation_limit: int = 50,
        relation_offset: int = 0,
    ) -> ClassificationRecord:
        """The full record of one code: texts, properties, relations, documents, sources.

        Any notation :func:`pmgs_core.parse_code` reads is accepted; ``code`` in the record is
        the canonical code that was matched and ``match_status`` says how. ``version`` (IPC
        only) selects one revision; without it the revision valid at the release's reference
        date is used. Missing codes and versions are records, not errors.
        """
        checked_scheme = _check_scheme(scheme)
        self._check_release(release)
        checked_language = _check_language(language)
        checked_edition = _check_edition(checked_scheme, edition)
        limit = _check_limit(relation_limit, "relation_limit")
        offset = _check_offset(relation_offset, "relation_offset")
        canonical, code_version = self._parse(checked_scheme, code)
        wanted_version = self._check_version(checked_scheme, version, code_version)
        query: LookupQuery = {
            "scheme": checked_scheme,
            "code": code,
            "edition": checked_edition,
            "version": wanted_version,
            "language": checked_language,
            "release": release,
        }
        return self._locked(
            lambda: self._lookup(
                query, canonical, wanted_version, limit, offset, exact=code == canonical
            )
        )

    def _check_version(self, scheme: str, version: object, code_version: str | None) -> str | None:
        if version is None:
            return code_version
        if scheme != "ipc":
            raise PMGSQueryError("INVALID_VERSION", "version applies only to IPC codes")
        if not isinstance(version, str):
            raise PMGSQueryError("INVALID_VERSION", "version must be a string such as 2006.01")
        try:
            checked = parse_ipc_version(version)
        except InvalidCodeError:
            raise PMGSQueryError(
                "INVALID_VERSION", "version must be an IPC version such as 2006.01"
            ) from None
        if code_version is not None and code_version != checked:
            raise PMGSQueryError(
                "INVALID_VERSION", "the code names a different version than the version argument"
            )
        return checked

    def _empty_record(
        self,
        query: LookupQuery,
        canonical: str,
        status: MatchStatus,
        *,
        limit: int,
        offset: int,
        concept: Sequence[Any] | None = None,
    ) -> ClassificationRecord:
        edition = query["edition"]
        sources: list[SourceRef] = []
        if concept is not None:
            edition = concept[2] or None
            sources = [self._source(concept[6], concept[7])]
        return {
            "record_type": "classification",
            "query": query,
            "match_status": status,
            "scheme": query["scheme"],
            "edition": edition,
            "code": canonical,
            "kind": None if concept is None else str(concept[4]),
            "record_status": None if concept is None else str(concept[5]),
            "release": self._release_ref(),
            "revision": None,
            "available_versions": [],
            "texts": [],
            "properties": [],
            "relations": [],
            "relation_count": 0,
            "relation_limit": limit,
            "relation_offset": offset,
            "relations_truncated": False,
            "next_relation_offset": None,
            "documents": [],
            "document_count": 0,
            "documents_truncated": False,
            "sources": sources,
            "attribution": self._attribution,
            "content_role": CONTENT_ROLE,
            "notice": EVIDENCE_NOTICE,
        }

    def _lookup(
        self,
        query: LookupQuery,
        canonical: str,
        version: str | None,
        limit: int,
        offset: int,
        *,
        exact: bool,
    ) -> ClassificationRecord:
        concept = self._find_concept(query["scheme"], canonical, query["edition"])
        if concept is None:
            return self._empty_record(query, canonical, "not_found", limit=limit, offset=offset)
        concept_id = int(concept[0])
        revisions = self._revisions(concept_id)
        if version is not None:
            chosen = next((row for row in revisions if row[1] == version), None)
            missing: MatchStatus = "version_not_found"
        else:
            chosen = self._active(revisions, f"{query['scheme']} {canonical}")
            missing = "not_valid_at_release"
        if chosen is None:
            record = self._empty_record(
                query, canonical, missing, limit=limit, offset=offset, concept=concept
            )
            record["available_versions"] = self._version_infos(revisions)
            return record
        record = self._empty_record(
            query,
            canonical,
            "exact" if exact else "normalized_exact",
            limit=limit,
            offset=offset,
            concept=concept,
        )
        revision_id = int(chosen[0])
        record["available_versions"] = self._version_infos(revisions)
        revision_source = self._source(chosen[6], chosen[7])
        record["revision"] = cast(
            RevisionInfo,
            {
                "version": str(chosen[1]),
                "valid_from": chosen[2],
                "valid_to": chosen[3],
                "valid_at_release": _valid_at(chosen[2], chosen[3], self._reference_date),
                "level": chosen[4],
                "sequence": chosen[5],
                "source": revision_source,
            },
        )
        if revision_source not in record["sources"]:
            record["sources"].append(revision_source)
        record["texts"] = [
            cast(
                TextItem,
                {
                    "language": row[0],
                    "text_type": row[1],
                    "line": row[2],
                    "body": row[3],
                    "source": self._source(row[4], row[5]),
                },
            )
            for row in self._rows(
                "SELECT language, text_type, line, body, source_file_id, locator FROM text "
                "WHERE revision_id = ? AND language = ? ORDER BY line, id",
                (revision_id, query["language"]),
            )
        ]
        record["properties"] = [
            cast(PropertyItem, {"name": row[0], "value": row[1], "source": self._source(*row[2:])})
            for row in self._rows(
                "SELECT name, value, source_file_id, locator FROM property "
                "WHERE revision_id = ? ORDER BY name, id",
                (revision_id,),
            )
        ]
        self._fill_relations(record, concept_id, limit, offset)
        self._fill_documents(record, concept_id)
        return record

    _RELATIONS_SQL: Final = """
        SELECT * FROM (
            SELECT 0 AS direction, r.kind, c.scheme, c.edition, c.code, c.kind, c.status,
                   fr.version, tr.version, r.sequence, r.source_file_id, r.locator, r.id
            FROM relation AS r
            JOIN concept AS c ON c.id = r.to_concept_id
            LEFT JOIN revision AS fr ON fr.id = r.from_revision_id
            LEFT JOIN revision AS tr ON tr.id = r.to_revision_id
            WHERE r.from_concept_id = :concept
            UNION ALL
            SELECT 1, r.kind, c.scheme, c.edition, c.code, c.kind, c.status,
                   fr.version, tr.version, r.sequence, r.source_file_id, r.locator, r.id
            FROM relation AS r
            JOIN concept AS c ON c.id = r.from_concept_id
            LEFT JOIN revision AS fr ON fr.id = r.from_revision_id
            LEFT JOIN revision AS tr ON tr.id = r.to_revision_id
            WHERE r.to_concept_id = :concept AND r.kind <> 'parent'
        )
        ORDER BY 1, 2, 10, 13
        LIMIT :limit OFFSET :offset
    """

    def _fill_relations(
        self, record: ClassificationRecord, concept_id: int, limit: int, offset: int
    ) -> None:
        """Outgoing relations (parent, theme, concordance, amended-to) and incoming ones
        except children (those are :meth:`children`), in a stable order, paged."""
        count_row = self._one(
            "SELECT (SELECT count(*) FROM relation WHERE from_concept_id = ?) + "
            "(SELECT count(*) FROM relation WHERE to_concept_id = ? AND kind <> 'parent')",
            (concept_id, concept_id),
        )
        count = int(count_row[0]) if count_row else 0
        rows = self._rows(
            self._RELATIONS_SQL, {"concept": concept_id, "limit": limit, "offset": offset}
        )
        items: list[RelationItem] = [
            {
                "kind": str(row[1]),
                "direction": "outgoing" if row[0] == 0 else "incoming",
                "target": self._code_ref(row[2:7]),
                "from_version": row[7] if row[7] else None,
                "to_version": row[8] if row[8] else None,
                "sequence": int(row[9]),
                "source": self._source(row[10], row[11]),
            }
            for row in rows
        ]
        truncated, next_offset = _page_fields(count, limit, offset, len(items))
        record["relations"] = items
        record["relation_count"] = count
        record["relations_truncated"] = truncated
        record["next_relation_offset"] = next_offset

    def _document_refs(self, concept_id: int, limit: int | None) -> tuple[list[DocumentRef], int]:
        count_row = self._one(
            "SELECT count(*) FROM (SELECT DISTINCT document_id, role FROM document_link "
            "WHERE concept_id = ?)",
            (concept_id,),
        )
        rows = self._rows(
            "SELECT d.document_key, d.kind, d.language, d.title, l.role, min(l.id) "
            "FROM document_link AS l JOIN document AS d ON d.id = l.document_id "
            "WHERE l.concept_id = ? GROUP BY d.id, l.role ORDER BY l.role DESC, d.kind, d.id "
            "LIMIT ?",
            (concept_id, -1 if limit is None else limit),
        )
        refs: list[DocumentRef] = [
            {
                "document_id": str(row[0]),
                "kind": str(row[1]),
                "language": row[2],
                "title": str(row[3]),
                "role": str(row[4]),
            }
            for row in rows
        ]
        return refs, int(count_row[0]) if count_row else 0

    def _fill_documents(self, record: ClassificationRecord, concept_id: int) -> None:
        refs, count = self._document_refs(concept_id, LOOKUP_DOCUMENT_LIMIT)
        record["documents"] = refs
        record["document_count"] = count
        record["documents_truncated"] = count > len(refs)

    # ------------------------------------------------------------------ hierarchy

    def hierarchy(
        self,
        direction: str,
        scheme: str,
        code: str,
        release: str = "current",
        edition: str | None = None,
        language: str = "ja",
        *,
        limit: int = 50,
        offset: int = 0,
    ) -> HierarchyPage:
        """A page of bounded summaries of the parents (ancestors, top first) or children.

        ``direction`` is ``parents``, ``children`` or (an extension of the contract)
        ``descendants``: the whole subtree in structural order, e.g. every viewpoint and
        F-term of a theme; its cost grows with the subtree, so prefer ``children`` for the
        large FI and IPC trees. Summaries carry scheme, edition, code, version, label and
        record status only and are built with a fixed number of queries per page, never one
        lookup per item; pass one to :meth:`lookup` for the full record. Reference-only
        children are not listed (they are not current codes).
        """
        checked_direction = _DIRECTIONS.get(direction) if isinstance(direction, str) else None
        if checked_direction is None:
            raise PMGSQueryError(
                "INVALID_ARGUMENT",
                "direction must be 'parents', 'children' or 'descendants'",
                {"accepted": ["parents", "children", "descendants"]},
            )
        checked_scheme = _check_scheme(scheme)
        self._check_release(release)
        checked_language = _check_language(language)
        checked_edition = _check_edition(checked_scheme, edition)
        checked_limit = _check_limit(limit, "limit")
        checked_offset = _check_offset(offset, "offset")
        canonical, _version = self._parse(checked_scheme, code)
        return self._locked(
            lambda: self._hierarchy(
                checked_direction,
                checked_scheme,
                canonical,
                checked_edition,
                checked_language,
                limit=checked_limit,
                offset=checked_offset,
                exact=code == canonical,
            )
        )

    def _hierarchy(
        self,
        direction: Direction,
        scheme: str,
        canonical: str,
        edition: str | None,
        language: str,
        *,
        limit: int,
        offset: int,
        exact: bool,
    ) -> HierarchyPage:
        page: HierarchyPage = {
            "record_type": "hierarchy_page",
            "direction": direction,
            "match_status": "not_found",
            "scheme": scheme,
            "edition": edition,
            "code": canonical,
            "language": language,
            "release": self._release_ref(),
            "items": [],
            "count": 0,
            "limit": limit,
            "offset": offset,
            "truncated": False,
            "next_offset": None,
            "attribution": self._attribution,
            "content_role": CONTENT_ROLE,
            "notice": EVIDENCE_NOTICE,
        }
        concept = self._find_concept(scheme, canonical, edition)
        if concept is None:
            return page
        concept_id = int(concept[0])
        page["match_status"] = "exact" if exact else "normalized_exact"
        page["edition"] = concept[2] or None
        if direction == "parents":
            ancestors = self._ancestor_ids(concept_id)
            count = len(ancestors)
            ids = ancestors[offset : offset + limit]
        elif direction == "descendants":
            descendants = self._descendant_ids(concept_id)
            count = len(descendants)
            ids = descendants[offset : offset + limit]
        else:
            count_row = self._one(
                "SELECT count(*) FROM relation AS r JOIN concept AS c ON c.id = r.from_concept_id "
                "WHERE r.to_concept_id = ? AND r.kind = 'parent' AND c.status = 'canonical'",
                (concept_id,),
            )
            count = int(count_row[0]) if count_row else 0
            ids = [
                int(row[0])
                for row in self._rows(
                    "SELECT r.from_concept_id FROM relation AS r "
                    "JOIN concept AS c ON c.id = r.from_concept_id "
                    "WHERE r.to_concept_id = ? AND r.kind = 'parent' AND c.status = 'canonical' "
                    "ORDER BY r.sequence, r.id LIMIT ? OFFSET ?",
                    (concept_id, limit, offset),
                )
            ]
        page["items"] = self._summaries(ids, language)
        page["count"] = count
        page["truncated"], page["next_offset"] = _page_fields(count, limit, offset, len(ids))
        return page

    def _ancestor_ids(self, concept_id: int) -> list[int]:
        """Parents up to the top, returned top first; one indexed query per level.

        A Python loop rather than a recursive CTE: SQLite 3.40 plans the recursive step with
        a Bloom filter that scans the relation table once per step, which made a theme's
        subtree take tens of milliseconds.
        """
        chain: list[int] = []
        current = concept_id
        for _ in range(_MAX_DEPTH):
            row = self._one(
                "SELECT to_concept_id FROM relation WHERE from_concept_id = ? AND kind = 'parent' "
                "ORDER BY sequence, id LIMIT 1",
                (current,),
            )
            if row is None or int(row[0]) in chain or int(row[0]) == concept_id:
                break
            current = int(row[0])
            chain.append(current)
        chain.reverse()
        return chain

    def _descendant_ids(self, concept_id: int) -> list[int]:
        """The canonical subtree below a concept in structural order (revision sequence).

        Breadth-first, one batched indexed query per level and chunk (see
        :meth:`_ancestor_ids` for why not a recursive CTE).
        """
        seen: set[int] = {concept_id}
        found: list[int] = []
        frontier = [concept_id]
        for _ in range(_MAX_DEPTH):
            if not frontier:
                break
            next_level: list[int] = []
            for start in range(0, len(frontier), _ID_CHUNK):
                chunk = frontier[start : start + _ID_CHUNK]
                for (child,) in self._rows(
                    "SELECT from_concept_id FROM relation WHERE kind = 'parent' "  # noqa: S608
                    f"AND to_concept_id IN ({_placeholders(len(chunk))})",
                    chunk,
                ):
                    if int(child) not in seen:
                        seen.add(int(child))
                        next_level.append(int(child))
            found.extend(next_level)
            frontier = next_level
        keyed: list[tuple[int, str, int]] = []
        for start in range(0, len(found), _ID_CHUNK):
            chunk = found[start : start + _ID_CHUNK]
            for row in self._rows(
                "SELECT c.id, c.code, (SELECT min(v.sequence) FROM revision AS v "  # noqa: S608
                "WHERE v.concept_id = c.id) FROM concept AS c "
                f"WHERE c.status = 'canonical' AND c.id IN ({_placeholders(len(chunk))})",
                chunk,
            ):
                keyed.append((-1 if row[2] is None else int(row[2]), str(row[1]), int(row[0])))
        keyed.sort()
        return [item[2] for item in keyed]

    def _summaries(self, concept_ids: list[int], language: str) -> list[HierarchySummary]:
        """Summaries of up to 200 concepts with three queries (concepts, revisions, labels)."""
        if not concept_ids:
            return []
        marks = _placeholders(len(concept_ids))
        concepts = {
            int(row[0]): row
            for row in self._rows(
                f"SELECT id, scheme, edition, code, status FROM concept WHERE id IN ({marks})",  # noqa: S608
                concept_ids,
            )
        }
        revisions: dict[int, list[tuple[Any, ...]]] = {}
        for row in self._rows(
            "SELECT concept_id, id, version, valid_from, valid_to FROM revision "  # noqa: S608
            f"WHERE concept_id IN ({marks})",
            concept_ids,
        ):
            revisions.setdefault(int(row[0]), []).append(row[1:])
        chosen: dict[int, tuple[Any, ...] | None] = {}
        for concept_id in concept_ids:
            row = concepts[concept_id]
            chosen[concept_id] = self._active(revisions.get(concept_id, []), f"{row[1]} {row[3]}")
        revision_ids = [int(rev[0]) for rev in chosen.values() if rev is not None]
        labels: dict[int, str] = {}
        if revision_ids:
            for revision_id, body in self._rows(
                "SELECT revision_id, body FROM text "  # noqa: S608
                f"WHERE revision_id IN ({_placeholders(len(revision_ids))}) AND language = ? "
                "ORDER BY revision_id, line, id",
                [*revision_ids, language],
            ):
                labels.setdefault(int(revision_id), str(body))
        summaries: list[HierarchySummary] = []
        for concept_id in concept_ids:
            row = concepts[concept_id]
            revision = chosen[concept_id]
            summaries.append(
                {
                    "scheme": str(row[1]),
                    "edition": row[2] or None,
                    "code": str(row[3]),
                    "version": None if revision is None else str(revision[1]),
                    "label": None if revision is None else labels.get(int(revision[0])),
                    "record_status": str(row[4]),
                }
            )
        return summaries

    def parents(
        self,
        scheme: str,
        code: str,
        release: str = "current",
        edition: str | None = None,
        language: str = "ja",
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> HierarchyPage | list[HierarchySummary]:
        """Ancestors: a :meth:`hierarchy` page with ``limit``, else every summary as a list."""
        return self._all_or_page(
            "parents",
            scheme,
            code,
            release=release,
            edition=edition,
            language=language,
            limit=limit,
            offset=offset,
        )

    def children(
        self,
        scheme: str,
        code: str,
        release: str = "current",
        edition: str | None = None,
        language: str = "ja",
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> HierarchyPage | list[HierarchySummary]:
        """Children: a :meth:`hierarchy` page with ``limit``, else every summary as a list."""
        return self._all_or_page(
            "children",
            scheme,
            code,
            release=release,
            edition=edition,
            language=language,
            limit=limit,
            offset=offset,
        )

    def _all_or_page(
        self,
        direction: Direction,
        scheme: str,
        code: str,
        *,
        release: str,
        edition: str | None,
        language: str,
        limit: int | None,
        offset: int,
    ) -> HierarchyPage | list[HierarchySummary]:
        if limit is not None:
            return self.hierarchy(
                direction, scheme, code, release, edition, language, limit=limit, offset=offset
            )
        items: list[HierarchySummary] = []
        next_offset: int | None = _check_offset(offset, "offset")
        while next_offset is not None:
            page = self.hierarchy(
                direction,
                scheme,
                code,
                release,
                edition,
                language,
                limit=MAX_LIMIT,
                offset=next_offset,
            )
            items.extend(page["items"])
            next_offset = page["next_offset"]
        ensure_response_size(items)
        return items

    # ------------------------------------------------------------------ documents

    def related_documents(
        self,
        scheme: str,
        code: str,
        release: str = "current",
        edition: str | None = None,
    ) -> RelatedDocumentsRecord:
        """Every document linked to a code (handbook, explanation, revision, definition)."""
        checked_scheme = _check_scheme(scheme)
        self._check_release(release)
        checked_edition = _check_edition(checked_scheme, edition)
        canonical, _version = self._parse(checked_scheme, code)

        def run() -> RelatedDocumentsRecord:
            record: RelatedDocumentsRecord = {
                "record_type": "related_documents",
                "match_status": "not_found",
                "scheme": checked_scheme,
                "edition": checked_edition,
                "code": canonical,
                "release": self._release_ref(),
                "documents": [],
                "document_count": 0,
            }
            concept = self._find_concept(checked_scheme, canonical, checked_edition)
            if concept is not None:
                record["match_status"] = "exact" if code == canonical else "normalized_exact"
                record["edition"] = concept[2] or None
                record["documents"], record["document_count"] = self._document_refs(
                    int(concept[0]), None
                )
            return record

        return self._locked(run)

    def get_document(
        self,
        document_id: str,
        page: int | None = None,
        section: int | None = None,
        *,
        locator: str | None = None,
        segment_limit: int = 200,
        segment_offset: int = 0,
        related_classification_limit: int = 200,
        related_classification_offset: int = 0,
    ) -> DocumentPage:
        """One document's segments (optionally one page, section or locator), paged.

        ``page`` is the 1-based PDF page, ``section`` the 1-based segment number, ``locator``
        an exact heading or source locator (``page:3``); they are mutually exclusive. Segments
        and related classifications are paged independently.
        """
        if not isinstance(document_id, str) or not 0 < len(document_id) <= _MAX_DOCUMENT_ID_CHARS:
            raise PMGSQueryError("INVALID_ARGUMENT", "document_id must be a non-empty string")
        given = [
            name
            for name, value in (("page", page), ("section", section), ("locator", locator))
            if value is not None
        ]
        if len(given) > 1:
            raise PMGSQueryError(
                "INVALID_DOCUMENT_SELECTOR",
                "page, section and locator are mutually exclusive; give at most one",
                {"given": given},
            )
        for name, value in (("page", page), ("section", section)):
            if value is not None and (not _is_int(value) or not 1 <= value <= SQLITE_MAX_INT):
                hint = (
                    " (pass a heading or locator string as locator=)" if name == "section" else ""
                )
                raise PMGSQueryError(
                    "INVALID_DOCUMENT_SELECTOR", f"{name} must be a positive integer{hint}"
                )
        if locator is not None and (
            not isinstance(locator, str) or not 0 < len(locator) <= _MAX_LOCATOR_CHARS
        ):
            raise PMGSQueryError("INVALID_DOCUMENT_SELECTOR", "locator must be a non-empty string")
        seg_limit = _check_limit(segment_limit, "segment_limit")
        seg_offset = _check_offset(segment_offset, "segment_offset")
        rel_limit = _check_limit(related_classification_limit, "related_classification_limit")
        rel_offset = _check_offset(related_classification_offset, "related_classification_offset")
        return self._locked(
            lambda: self._get_document(
                document_id,
                page=page,
                section=section,
                locator=locator,
                seg_limit=seg_limit,
                seg_offset=seg_offset,
                rel_limit=rel_limit,
                rel_offset=rel_offset,
            )
        )

    def _get_document(
        self,
        document_id: str,
        *,
        page: int | None,
        section: int | None,
        locator: str | None,
        seg_limit: int,
        seg_offset: int,
        rel_limit: int,
        rel_offset: int,
    ) -> DocumentPage:
        document = self._one(
            "SELECT id, kind, language, title, source_file_id, locator FROM document "
            "WHERE document_key = ?",
            (document_id,),
        )
        if document is None:
            raise PMGSQueryError("DOCUMENT_NOT_FOUND", "no document has this document_id")
        internal_id = int(document[0])
        where: str
        params: list[object]
        if page is not None:
            where, params = "document_id = ? AND page = ?", [internal_id, page]
        elif section is not None:
            where, params = "document_id = ? AND sequence_number = ?", [internal_id, section]
        elif locator is not None:
            where, params = (
                "document_id = ? AND (locator = ? OR heading = ?)",
                [internal_id, locator, locator],
            )
        else:
            where, params = "document_id = ?", [internal_id]
        count_row = self._one(f"SELECT count(*) FROM document_text WHERE {where}", params)  # noqa: S608
        count = int(count_row[0]) if count_row else 0
        if count == 0 and (page is not None or section is not None or locator is not None):
            raise PMGSQueryError(
                "DOCUMENT_SELECTOR_NOT_FOUND", "the document has no segment for this selector"
            )
        segments: list[DocumentSegment] = [
            {
                "section": int(row[0]),
                "page": row[1],
                "heading": row[2],
                "text_type": row[3],
                "body": str(row[4]),
                "source": self._source(row[5], row[6]),
            }
            for row in self._rows(
                "SELECT sequence_number, page, heading, text_type, body, source_file_id, locator "  # noqa: S608
                f"FROM document_text WHERE {where} ORDER BY sequence_number LIMIT ? OFFSET ?",
                [*params, seg_limit, seg_offset],
            )
        ]
        rel_count_row = self._one(
            "SELECT count(*) FROM document_link WHERE document_id = ?", (internal_id,)
        )
        rel_count = int(rel_count_row[0]) if rel_count_row else 0
        related: list[RelatedClassification] = [
            {**self._code_ref(row[:5]), "role": str(row[5])}
            for row in self._rows(
                "SELECT c.scheme, c.edition, c.code, c.kind, c.status, l.role "
                "FROM document_link AS l JOIN concept AS c ON c.id = l.concept_id "
                "WHERE l.document_id = ? ORDER BY l.sequence, l.id LIMIT ? OFFSET ?",
                (internal_id, rel_limit, rel_offset),
            )
        ]
        seg_truncated, seg_next = _page_fields(count, seg_limit, seg_offset, len(segments))
        rel_truncated, rel_next = _page_fields(rel_count, rel_limit, rel_offset, len(related))
        return {
            "record_type": "document_page",
            "document_id": document_id,
            "kind": str(document[1]),
            "language": document[2],
            "title": str(document[3]),
            "release": self._release_ref(),
            "selector": {"page": page, "section": section, "locator": locator},
            "segments": segments,
            "segment_count": count,
            "segment_limit": seg_limit,
            "segment_offset": seg_offset,
            "segments_truncated": seg_truncated,
            "next_segment_offset": seg_next,
            "related_classifications": related,
            "related_classification_count": rel_count,
            "related_classification_limit": rel_limit,
            "related_classification_offset": rel_offset,
            "related_classifications_truncated": rel_truncated,
            "next_related_classification_offset": rel_next,
            "sources": [self._source(document[4], document[5])],
            "attribution": self._attribution,
            "content_role": CONTENT_ROLE,
            "notice": EVIDENCE_NOTICE,
        }

    # ------------------------------------------------------------------ search

    def search(
        self,
        query: str,
        schemes: Sequence[str] | None = None,
        release: str = "current",
        language: str = "ja",
        limit: int = 20,
        *,
        offset: int = 0,
    ) -> ClassificationSearchPage:
        """Classifications whose texts contain every term of ``query`` (lexical, not semantic).

        One hit per classification, ranked by its first matching line in package order.
        """
        plan = _check_query(query)
        checked_schemes = _check_schemes(schemes)
        self._check_release(release)
        checked_language = _check_language(language)
        checked_limit = _check_limit(limit, "limit")
        checked_offset = _check_offset(offset, "offset")
        return self._locked(
            lambda: self._search_classifications(
                query,
                plan,
                checked_schemes,
                checked_language,
                limit=checked_limit,
                offset=checked_offset,
            )
        )

    def search_documents(
        self,
        query: str,
        release: str = "current",
        language: str = "ja",
        limit: int = 20,
        *,
        offset: int = 0,
        document_kinds: Sequence[str] | None = None,
    ) -> DocumentSearchPage:
        """Documents whose segments contain every term; one hit per document.

        Documents without a language (PDF definitions, the judgement table) match either
        language. ``document_kinds`` restricts the kinds (the "category" of document-DB
        clients).
        """
        plan = _check_query(query)
        self._check_release(release)
        checked_language = _check_language(language)
        checked_limit = _check_limit(limit, "limit")
        checked_offset = _check_offset(offset, "offset")
        kinds = _check_kinds(document_kinds)
        return self._locked(
            lambda: self._search_documents(
                query, plan, checked_language, kinds, limit=checked_limit, offset=checked_offset
            )
        )

    def search_pmgs(
        self,
        query: str,
        schemes: Sequence[str] | None = None,
        content_types: Sequence[str] | None = None,
        release: str = "current",
        language: str = "ja",
        limit: int = 20,
        *,
        classification_offset: int = 0,
        document_offset: int = 0,
        document_kinds: Sequence[str] | None = None,
    ) -> CombinedSearchPage:
        """Classifications and documents at once, each paged on its own.

        ``limit`` applies to each type separately; continue one type with its own offset.
        """
        plan = _check_query(query)
        checked_schemes = _check_schemes(schemes)
        if content_types is None:
            types = list(_CONTENT_TYPES)
        else:
            if isinstance(content_types, str):
                content_types = [content_types]
            if (
                not isinstance(content_types, (list, tuple))
                or not content_types
                or any(item not in _CONTENT_TYPES for item in content_types)
            ):
                raise PMGSQueryError(
                    "INVALID_ARGUMENT",
                    "content_types must be a non-empty list of classification, document",
                    {"accepted": list(_CONTENT_TYPES)},
                )
            types = [item for item in _CONTENT_TYPES if item in content_types]
        self._check_release(release)
        checked_language = _check_language(language)
        checked_limit = _check_limit(limit, "limit")
        class_offset = _check_offset(classification_offset, "classification_offset")
        doc_offset = _check_offset(document_offset, "document_offset")
        kinds = _check_kinds(document_kinds)

        def run() -> CombinedSearchPage:
            combined: CombinedSearchPage = {
                "record_type": "combined_search_page",
                "query": query,
                "search_mode": "none",
                "content_types": types,
                "results_by_type": {},
                "release": self._release_ref(),
                "attribution": self._attribution,
                "content_role": CONTENT_ROLE,
                "notice": EVIDENCE_NOTICE,
            }
            modes: list[SearchMode] = []
            if "classification" in types:
                classification_page = self._search_classifications(
                    query,
                    plan,
                    checked_schemes,
                    checked_language,
                    limit=checked_limit,
                    offset=class_offset,
                )
                combined["results_by_type"]["classification"] = classification_page
                modes.append(classification_page["search_mode"])
            if "document" in types:
                document_page = self._search_documents(
                    query, plan, checked_language, kinds, limit=checked_limit, offset=doc_offset
                )
                combined["results_by_type"]["document"] = document_page
                modes.append(document_page["search_mode"])
            combined["search_mode"] = combine_modes(modes)
            return combined

        return self._locked(run)

    def _page_base(
        self, query: str, plan: QueryPlan | None, language: str, limit: int, offset: int
    ) -> dict[str, object]:
        terms: list[SearchTerm] = (
            [] if plan is None else [{"term": t.term, "path": t.path} for t in plan.terms]
        )
        return {
            "query": query,
            "terms": terms,
            "search_mode": "none" if plan is None else plan.search_mode,
            "language": language,
            "release": self._release_ref(),
            "limit": limit,
            "offset": offset,
            "count": 0,
            "has_more": False,
            "next_offset": None,
            "total_is_exact": False,
            "attribution": self._attribution,
            "content_role": CONTENT_ROLE,
            "notice": EVIDENCE_NOTICE,
        }

    @staticmethod
    def _candidate_sql(
        plan: QueryPlan,
        *,
        fts: str,
        bigram: str,
        content: str,
        columns: str,
        joins: str,
        filters: str,
    ) -> tuple[str, list[object]]:
        """The candidate query: the best index drives, rows come in rowid (package) order.

        ``CROSS JOIN`` pins the index as the outer loop, so SQLite streams rows in index order
        and never sorts or scans the content table for an indexed term.
        """
        trigram, bigrams = plan.trigram_match, plan.bigram_match
        params: list[object] = []
        if trigram is not None or bigrams is not None:
            driver = fts if trigram is not None else bigram
            sql = (
                f"SELECT {columns} FROM {driver} AS f CROSS JOIN {content} ON x.id = f.rowid "  # noqa: S608
                f"{joins} WHERE f.{driver} MATCH ?"
            )
            params.append(trigram if trigram is not None else bigrams)
            if trigram is not None and bigrams is not None:
                # The unary + keeps SQLite from turning this into the FTS driver's constraint
                # (one MATCH per bigram row, then a sort of every match): the bigram rows are
                # read once into a set, and the trigram scan still streams in rowid order.
                sql += f" AND +f.rowid IN (SELECT rowid FROM {bigram} WHERE {bigram} MATCH ?)"  # noqa: S608
                params.append(bigrams)
            order = "f.rowid"
        else:
            needles = plan.literal_needles
            condition = " OR ".join("instr(x.body, ?) > 0" for _ in needles)
            sql = f"SELECT {columns} FROM {content} {joins} WHERE ({condition})"  # noqa: S608
            params.extend(needles)
            order = "x.id"
        return f"{sql} AND {filters} ORDER BY {order}", params

    def _search_classifications(
        self,
        query: str,
        plan: QueryPlan | None,
        schemes: list[str],
        language: str,
        *,
        limit: int,
        offset: int,
    ) -> ClassificationSearchPage:
        page = cast(
            ClassificationSearchPage,
            {
                "record_type": "classification_search_page",
                **self._page_base(query, plan, language, limit, offset),
                "schemes": schemes,
                "results": [],
            },
        )
        if plan is None:
            return page
        sql, params = self._candidate_sql(
            plan,
            fts="text_fts",
            bigram="text_bigram",
            content="text AS x",
            columns=(
                "x.id, x.language, x.text_type, x.line, x.body, x.source_file_id, x.locator, "
                "c.id, c.scheme, c.edition, c.code, c.kind, c.status, r.version"
            ),
            joins=(
                "CROSS JOIN revision AS r ON r.id = x.revision_id "
                "CROSS JOIN concept AS c ON c.id = r.concept_id"
            ),
            filters=(
                f"x.language = ? AND c.status = 'canonical' AND c.scheme IN "
                f"({_placeholders(len(schemes))})"
            ),
        )
        params.extend([language, *schemes])
        grouped = collect_groups(
            self._stream(sql, params),
            key=lambda row: int(row[7]),
            accept=lambda row: plan.matches(str(row[4])),
            offset=offset,
            limit=limit,
        )
        folded = plan.folded_terms
        hits: list[ClassificationSearchHit] = []
        for concept_id in grouped.keys:
            rows = grouped.rows[concept_id]
            first = rows[0]
            matches: list[ClassificationMatch] = [
                {
                    "language": str(row[1]),
                    "text_type": str(row[2]),
                    "line": int(row[3]),
                    "version": str(row[13]),
                    "excerpt": excerpt(str(row[4]), folded),
                    "source": self._source(row[5], row[6]),
                }
                for row in rows
            ]
            hits.append({**self._code_ref(first[8:13]), "matches": matches})
        page["results"] = hits
        page["count"] = len(hits)
        page["has_more"] = grouped.has_more
        page["next_offset"] = offset + len(hits) if grouped.has_more else None
        return page

    def _search_documents(
        self,
        query: str,
        plan: QueryPlan | None,
        language: str,
        kinds: list[str] | None,
        *,
        limit: int,
        offset: int,
    ) -> DocumentSearchPage:
        page = cast(
            DocumentSearchPage,
            {
                "record_type": "document_search_page",
                **self._page_base(query, plan, language, limit, offset),
                "document_kinds": kinds,
                "results": [],
            },
        )
        if plan is None:
            return page
        filters = "(d.language = ? OR d.language IS NULL)"
        if kinds is not None:
            filters += f" AND d.kind IN ({_placeholders(len(kinds))})"
        sql, params = self._candidate_sql(
            plan,
            fts="document_text_fts",
            bigram="document_text_bigram",
            content="document_text AS x",
            columns=(
                "x.id, x.sequence_number, x.page, x.heading, x.text_type, x.body, "
                "x.source_file_id, x.locator, d.id, d.document_key, d.kind, d.language, d.title"
            ),
            joins="CROSS JOIN document AS d ON d.id = x.document_id",
            filters=filters,
        )
        params.append(language)
        if kinds is not None:
            params.extend(kinds)
        grouped = collect_groups(
            self._stream(sql, params),
            key=lambda row: int(row[8]),
            accept=lambda row: plan.matches(str(row[5])),
            offset=offset,
            limit=limit,
        )
        folded = plan.folded_terms
        hits: list[DocumentSearchHit] = []
        for document_id in grouped.keys:
            rows = grouped.rows[document_id]
            first = rows[0]
            matches: list[DocumentMatch] = [
                {
                    "section": int(row[1]),
                    "page": row[2],
                    "heading": row[3],
                    "text_type": row[4],
                    "excerpt": excerpt(str(row[5]), folded),
                    "source": self._source(row[6], row[7]),
                }
                for row in rows
            ]
            hits.append(
                {
                    "document_id": str(first[9]),
                    "kind": str(first[10]),
                    "language": first[11],
                    "title": str(first[12]),
                    "matches": matches,
                }
            )
        page["results"] = hits
        page["count"] = len(hits)
        page["has_more"] = grouped.has_more
        page["next_offset"] = offset + len(hits) if grouped.has_more else None
        return page

    # ------------------------------------------------------------------ release

    def release_info(self, release: str = "current") -> ReleaseInfo:
        """What this database holds: release, reference date, hashes, counts.

        Counts exclude reference-only records; they are computed once per store.
        """
        self._check_release(release)
        return self._locked(self._release_info)

    def _release_info(self) -> ReleaseInfo:
        if self._counts_cache is None:
            schema_version = int(self._metadata.get("schema_version", "0"))
            self._counts_cache = {
                "record_type": "release_info",
                "release_id": self._release_id,
                "reference_date": self._reference_date,
                "source_manifest_sha256": self._source_sha256,
                "schema_version": schema_version,
                "builder_version": self._metadata.get("builder_version"),
                "logical_digest": self._metadata.get("logical_digest"),
                "attribution": self._attribution,
                "database": self._resolved.path.name,
                "classification_counts": [
                    {"scheme": str(row[0]), "edition": row[1] or None, "count": int(row[2])}
                    for row in self._rows(
                        "SELECT scheme, edition, count(*) FROM concept "
                        "WHERE status = 'canonical' GROUP BY scheme, edition "
                        "ORDER BY scheme, edition"
                    )
                ],
                "document_counts": [
                    {"kind": str(row[0]), "count": int(row[1])}
                    for row in self._rows(
                        "SELECT kind, count(*) FROM document GROUP BY kind ORDER BY kind"
                    )
                ],
                "quarantine_counts": [
                    {"data_group": str(row[0]), "reason": str(row[1]), "count": int(row[2])}
                    for row in self._rows(
                        "SELECT data_group, reason, count(*) FROM quarantine "
                        "GROUP BY data_group, reason ORDER BY data_group, reason"
                    )
                ],
            }
        info = self._counts_cache
        return cast(ReleaseInfo, {**info})

    # ------------------------------------------------------------------ browsing

    def list_documents(
        self,
        kind: str | None = None,
        release: str = "current",
        *,
        limit: int = 20,
        offset: int = 0,
    ) -> DocumentListPage:
        """Documents in a stable order (by internal id = package order), optionally one kind.

        For clients that browse a document database; ``total_count`` is exact (an index
        count), ``document_id`` is what :meth:`get_document` takes.
        """
        kinds = _check_kinds(kind)
        self._check_release(release)
        checked_limit = _check_limit(limit, "limit")
        checked_offset = _check_offset(offset, "offset")

        def run() -> DocumentListPage:
            where, params = ("", []) if kinds is None else ("WHERE d.kind = ?", [kinds[0]])
            total = self._count_documents(kinds[0] if kinds else None)
            rows = self._rows(
                "SELECT d.document_key, d.kind, d.language, d.title, d.source_file_id, "  # noqa: S608
                "d.locator, (SELECT count(*) FROM document_text AS s WHERE s.document_id = d.id) "
                f"FROM document AS d {where} ORDER BY d.id LIMIT ? OFFSET ?",
                [*params, checked_limit, checked_offset],
            )
            items: list[DocumentListItem] = [
                {
                    "document_id": str(row[0]),
                    "kind": str(row[1]),
                    "language": row[2],
                    "title": str(row[3]),
                    "segment_count": int(row[6]),
                    "source": self._source(row[4], row[5]),
                }
                for row in rows
            ]
            has_more, next_offset = _page_fields(total, checked_limit, checked_offset, len(items))
            return {
                "record_type": "document_list_page",
                "kind": kinds[0] if kinds else None,
                "release": self._release_ref(),
                "items": items,
                "count": len(items),
                "total_count": total,
                "limit": checked_limit,
                "offset": checked_offset,
                "has_more": has_more,
                "next_offset": next_offset,
                "attribution": self._attribution,
                "content_role": CONTENT_ROLE,
                "notice": EVIDENCE_NOTICE,
            }

        return self._locked(run)

    def list_quarantine(
        self,
        data_group: str | None = None,
        release: str = "current",
        *,
        limit: int = 20,
        offset: int = 0,
    ) -> QuarantinePage:
        """The records the build kept in quarantine, in package order, optionally one group.

        They are never answered as classifications; this is how a user sees what the
        package said where pmgs could not read it with certainty (ADR 0009).
        """
        self._check_release(release)
        if data_group is not None and (not isinstance(data_group, str) or len(data_group) > 64):
            raise PMGSQueryError("INVALID_ARGUMENT", "data_group must be a data group name")
        checked_limit = _check_limit(limit, "limit")
        checked_offset = _check_offset(offset, "offset")

        def run() -> QuarantinePage:
            where, params = (
                ("", []) if data_group is None else ("WHERE data_group = ?", [data_group])
            )
            count_row = self._one(f"SELECT count(*) FROM quarantine {where}", params)  # noqa: S608
            total = int(count_row[0]) if count_row else 0
            rows = self._rows(
                "SELECT data_group, reason, message, raw, source_file_id, locator "  # noqa: S608
                f"FROM quarantine {where} ORDER BY id LIMIT ? OFFSET ?",
                [*params, checked_limit, checked_offset],
            )
            items: list[QuarantineItem] = [
                {
                    "data_group": str(row[0]),
                    "reason": str(row[1]),
                    "message": str(row[2]),
                    "raw": str(row[3]),
                    "source": None if row[4] is None else self._source(row[4], str(row[5])),
                }
                for row in rows
            ]
            has_more, next_offset = _page_fields(total, checked_limit, checked_offset, len(items))
            return {
                "record_type": "quarantine_page",
                "data_group": data_group,
                "release": self._release_ref(),
                "items": items,
                "count": len(items),
                "total_count": total,
                "limit": checked_limit,
                "offset": checked_offset,
                "has_more": has_more,
                "next_offset": next_offset,
                "attribution": self._attribution,
            }

        return self._locked(run)

    def _count_documents(self, kind: str | None) -> int:
        if kind is None:
            row = self._one("SELECT count(*) FROM document")
        else:
            row = self._one("SELECT count(*) FROM document WHERE kind = ?", (kind,))
        return int(row[0]) if row else 0

    def document_count(self, kind: str | None = None, release: str = "current") -> int:
        """How many documents (of one kind) the database holds."""
        kinds = _check_kinds(kind)
        self._check_release(release)
        with self._lock:
            return self._count_documents(kinds[0] if kinds else None)

    def categories(self, release: str = "current") -> Categories:
        """Document kinds with counts, and F-term themes with their canonical code counts.

        Computed once per store (the theme count reads every F-term concept).
        """
        self._check_release(release)
        return self._locked(self._categories)

    def _categories(self) -> Categories:
        if self._categories_cache is None:
            themes: list[ThemeCategory] = []
            titles = {
                str(row[0]): str(row[1])
                for row in self._rows(
                    "SELECT c.code, (SELECT t.body FROM text AS t WHERE t.revision_id = r.id "
                    "AND t.language = 'ja' ORDER BY t.line, t.id LIMIT 1) "
                    "FROM concept AS c JOIN revision AS r ON r.concept_id = c.id "
                    "WHERE c.scheme = 'fterm' AND c.kind = 'theme' AND c.status = 'canonical'"
                )
                if row[1] is not None
            }
            for theme, count in self._rows(
                "SELECT substr(code, 1, 5), count(*) FROM concept "
                "WHERE scheme = 'fterm' AND status = 'canonical' GROUP BY 1 ORDER BY 1"
            ):
                themes.append(
                    {"theme": str(theme), "title": titles.get(str(theme)), "count": int(count)}
                )
            self._categories_cache = {
                "record_type": "categories",
                "release": self._release_ref(),
                "document_kinds": [
                    {"kind": str(row[0]), "count": int(row[1])}
                    for row in self._rows(
                        "SELECT kind, count(*) FROM document GROUP BY kind ORDER BY kind"
                    )
                ],
                "themes": themes,
                "attribution": self._attribution,
            }
        return cast(Categories, {**self._categories_cache})
