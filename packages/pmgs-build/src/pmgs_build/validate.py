"""``validate_database``: the checks a reference database must pass before anyone may use it.

``build_database`` runs them on its temporary file and publishes nothing that fails, setup runs
them again on the staging copy, and ``pmgs validate`` runs them on any file. Each check is
named and reports a figure (``0 violations``, ``174,811 rows``) whether it passes or not, so
a report says how much was checked, not only that nothing was found.

What the database alone can prove: page structure (``PRAGMA quick_check``), foreign keys,
the four FTS5 indexes against their content, the schema version, the release row and its
attribution, that ``source_file`` is exactly the package the release's manifest hash names,
that the rows per table, per source file and per data group are the ones the builder wrote
(it records them in ``metadata.build_counts`` before the logical digest), that no IPC code
has two revisions valid at the reference date, that every ``amended_to`` edge resolves and
that no text of a reference-only concept is in a search index.

Why ``quick_check`` and not ``integrity_check``: the latter also proves that every index
entry matches its table row, which costs a random lookup per entry. On a scale-0.1 package
(157 MB) it took 2.3-3.4 s against 1.1-1.5 s, and the gap grows faster than the file at
scale 1.0, where validation has to stay well inside the build's time budget. Index/table
mismatches come from SQLite faults or a damaged disk, not from the builder, and a file that
the builder wrote in one transaction and never changed in place has had no chance to get
them; quick_check still reads every page, record and NOT NULL/CHECK constraint.

FTS5's ``integrity-check`` is an ``INSERT`` command and needs a writable connection. A
database that is already promoted must never be opened for writing, so unless the caller
says the file is a private staging copy (``writable=True``), the checks run on a temporary
copy of it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Final

from pmgs_build.inventory import manifest_text
from pmgs_build.model import SourceFile
from pmgs_core import SCHEMA_VERSION, TABLES, bigram_tokens

__all__ = [
    "BUILD_COUNTS_KEY",
    "CHECK_NAMES",
    "FTS_TABLES",
    "ValidationCheck",
    "ValidationReport",
    "encode_build_counts",
    "validate_database",
]

FTS_TABLES: Final = ("text_fts", "document_text_fts", "text_bigram", "document_text_bigram")
"""The FTS5 tables whose index must agree with their content."""

_FTS_CONTENT: Final = {
    "text_fts": "searchable_text",
    "document_text_fts": "document_text",
    "text_bigram": "searchable_text",
    "document_text_bigram": "document_text",
}
"""What each FTS table indexes. The bigram tables are contentless, so FTS5 can only check
their structure; their row count is compared with this content instead."""

BUILD_COUNTS_KEY: Final = "build_counts"
"""The metadata key under which the builder records what it wrote (see
:func:`encode_build_counts`)."""

COUNTED_TABLES: Final = tuple(table for table in TABLES if table != "metadata")
"""Tables whose row count the builder records; ``metadata`` holds the record itself and the
digest, so it cannot count itself."""

SOURCE_TABLES: Final = (
    "concept",
    "revision",
    "text",
    "property",
    "relation",
    "document",
    "document_text",
    "document_link",
    "build_issue",
    "quarantine",
)
"""Tables whose rows carry a ``source_file_id``, counted per source file."""

CHECK_NAMES: Final = (
    "quick_check",
    "foreign_key_check",
    *(f"fts_integrity:{table}" for table in FTS_TABLES),
    "schema_version",
    "release_row",
    "copyright",
    "source_files",
    "source_file_rows",
    "table_counts",
    "group_counts",
    "ipc_valid_revisions",
    "amended_to_resolved",
    "reference_only_unsearchable",
    "quarantine",
)
"""Every check, in report order."""

_NO_BUILD_COUNTS: Final = f"no {BUILD_COUNTS_KEY} in metadata"


def encode_build_counts(
    tables: Mapping[str, int],
    groups: Mapping[str, Mapping[str, int]],
    records: Mapping[int, int],
    rows: Mapping[str, Mapping[int, int]],
) -> str:
    """The ``metadata.build_counts`` value: what the builder wrote, as compact, sorted JSON.

    ``tables``: rows per table of :data:`COUNTED_TABLES`; ``groups``: ``files``, ``bytes``,
    ``records``, ``skipped`` per data group (the build report's figures); ``records``:
    ``record_count`` per source file id, every file included; ``rows``: per table of
    :data:`SOURCE_TABLES`, rows per source file id, only ids with rows. The value is part of
    the logical digest, so it holds nothing that differs between two builds of one package.
    """
    value = {
        "tables": {table: int(tables.get(table, 0)) for table in COUNTED_TABLES},
        "groups": {group: dict(counts) for group, counts in groups.items()},
        "records": {str(file_id): int(count) for file_id, count in sorted(records.items())},
        "rows": {
            table: {
                str(file_id): int(count)
                for file_id, count in sorted(rows.get(table, {}).items())
                if count
            }
            for table in SOURCE_TABLES
        },
    }
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class ValidationCheck:
    """One named check: ``ok`` or not, the ``figure`` it measured, and on failure a short
    reason. Neither holds a path or text from the package."""

    name: str
    ok: bool
    detail: str = ""
    figure: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "name": self.name,
            "ok": self.ok,
            "figure": self.figure,
            "detail": self.detail,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """All checks of one database; :attr:`ok` only when every check passed."""

    database: str
    checks: list[ValidationCheck] = field(default_factory=list)
    seconds: float = 0.0
    """Wall time of the whole validation (checks overlap, so not the sum of theirs)."""

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return bool(self.checks) and all(check.ok for check in self.checks)

    @property
    def failed(self) -> list[str]:
        """Names of the failed checks."""
        return [check.name for check in self.checks if not check.ok]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``pmgs validate --json``); ``database`` is a file name only."""
        return {
            "record_type": "validation_report",
            "database": self.database,
            "ok": self.ok,
            "failed": self.failed,
            "seconds": round(self.seconds, 3),
            "checks": [check.to_dict() for check in self.checks],
        }


class _Failed(Exception):
    """A check found a problem: the figure it measured and why that is wrong."""

    def __init__(self, figure: str, detail: str) -> None:
        super().__init__(detail)
        self.figure = figure
        self.detail = detail


def _n(value: int) -> str:
    return f"{value:,}"


def _plural(count: int, noun: str) -> str:
    return f"{_n(count)} {noun}{'' if count == 1 else 's'}"


def _scalar(conn: sqlite3.Connection, sql: str, params: Iterable[object] = ()) -> Any:
    row = conn.execute(sql, tuple(params)).fetchone()
    return None if row is None else row[0]


def _mismatches(expected: Mapping[str, int], found: Mapping[str, int]) -> list[str]:
    return sorted(
        key for key in expected.keys() | found.keys() if expected.get(key) != found.get(key)
    )


def _first(keys: list[str], limit: int = 3) -> str:
    shown = ", ".join(keys[:limit])
    return shown + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


class _Checks:
    """The checks of one open connection; each method returns its figure or raises
    :class:`_Failed`. Figures and reasons name tables, ids and counts, never package text."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._counts: dict[str, Any] | None = None
        self._counts_read = False

    def build_counts(self) -> dict[str, Any]:
        """``metadata.build_counts``, parsed once; a missing or broken one fails the caller."""
        if not self._counts_read:
            self._counts_read = True
            raw = _scalar(
                self.conn, "SELECT value FROM metadata WHERE key = ?", (BUILD_COUNTS_KEY,)
            )
            try:
                parsed = json.loads(raw) if isinstance(raw, str) else None
            except ValueError:
                parsed = None
            if isinstance(parsed, dict) and all(
                isinstance(parsed.get(key), dict) for key in ("tables", "groups", "records", "rows")
            ):
                self._counts = parsed
        if self._counts is None:
            raise _Failed("no record", _NO_BUILD_COUNTS)
        return self._counts

    def quick_check(self) -> str:
        rows = self.conn.execute("PRAGMA quick_check").fetchall()
        if rows != [("ok",)]:
            raise _Failed(_plural(len(rows), "problem"), "SQLite reports damaged pages or records")
        pages = int(_scalar(self.conn, "PRAGMA page_count"))
        return f"0 problems in {_plural(pages, 'page')}"

    def foreign_keys(self) -> str:
        rows = self.conn.execute("PRAGMA foreign_key_check").fetchall()
        if rows:
            tables = sorted({str(row[0]) for row in rows})
            raise _Failed(_plural(len(rows), "violation"), f"in {', '.join(tables)}")
        return "0 violations"

    def fts(self, table: str) -> str:
        content = _FTS_CONTENT[table]
        try:
            self.conn.execute(f"INSERT INTO {table}({table}) VALUES('integrity-check')")
        except sqlite3.Error as exc:
            # The SQLite message names the table only; keep the category, not the text.
            if "no such table" in str(exc):
                raise _Failed("no table", "table missing") from None
            raise _Failed("index damaged", "index does not match its content") from None
        rows = int(_scalar(self.conn, f"SELECT count(*) FROM {content}"))  # noqa: S608
        indexed = self._indexed_rows(table)
        if indexed != rows:
            raise _Failed(
                f"{_n(indexed)} rows indexed, {_n(rows)} in {content}",
                "index does not match its content",
            )
        return f"{_n(rows)} rows"

    def _indexed_rows(self, table: str) -> int:
        """Rows in an FTS5 index, from its averages record (rowid 1 of ``%_data``).

        A contentless table cannot be scanned, and FTS5's integrity-check cannot compare it
        with anything; the record's first varint is FTS5's own count of the rows inserted.
        """
        blob = _scalar(self.conn, f"SELECT block FROM {table}_data WHERE id = 1")  # noqa: S608
        return _varint(bytes(blob or b""))

    def schema_version(self) -> str:
        user_version = int(_scalar(self.conn, "PRAGMA user_version"))
        meta = _scalar(self.conn, "SELECT value FROM metadata WHERE key = 'schema_version'")
        if user_version != SCHEMA_VERSION or meta != str(SCHEMA_VERSION):
            raise _Failed(
                f"{user_version}/{meta}", f"expected {SCHEMA_VERSION} in user_version and metadata"
            )
        return str(SCHEMA_VERSION)

    def release_row(self) -> str:
        rows = self.conn.execute(
            "SELECT release_id, reference_date, source_manifest_sha256 FROM release"
        ).fetchall()
        if len(rows) != 1:
            raise _Failed(_plural(len(rows), "release row"), "exactly one release row expected")
        meta = dict(
            self.conn.execute(
                "SELECT key, value FROM metadata WHERE key IN "
                "('release_id', 'reference_date', 'source_manifest_sha256')"
            ).fetchall()
        )
        names = ("release_id", "reference_date", "source_manifest_sha256")
        differ = [
            name for name, value in zip(names, rows[0], strict=True) if meta.get(name) != value
        ]
        if differ:
            raise _Failed("1 release row", f"metadata differs: {', '.join(differ)}")
        return f"1 release row ({rows[0][0]}, {rows[0][1]})"

    def copyright(self) -> str:
        files = self.conn.execute(
            "SELECT status FROM source_file WHERE data_group = 'COPYRGHT'"
        ).fetchall()
        attributions = [
            str(row[0] or "").strip()
            for row in self.conn.execute("SELECT attribution FROM release").fetchall()
        ]
        figure = (
            f"{_plural(len(files), 'COPYRGHT file')}, "
            f"attribution of {_n(len(attributions[0])) if len(attributions) == 1 else '?'} chars"
        )
        if len(files) != 1:
            raise _Failed(figure, "exactly one COPYRGHT file expected")
        if files[0][0] != "parsed":
            raise _Failed(figure, f"the COPYRGHT file is {files[0][0]}, not parsed")
        if len(attributions) != 1 or not attributions[0]:
            raise _Failed(figure, "empty attribution")
        return figure

    def source_files(self) -> str:
        rows = self.conn.execute(
            "SELECT id, path, bytes, sha256, data_group, record_count FROM source_file"
        ).fetchall()
        manifest = manifest_text(
            SourceFile(
                id=int(row[0]),
                path=str(row[1]),
                absolute=Path(),
                bytes=int(row[2]),
                sha256=str(row[3]),
                data_group=str(row[4]),
                parser=None,
            )
            for row in rows
        )
        digest = hashlib.sha256(manifest.encode("utf-8")).hexdigest()
        figure = _plural(len(rows), "file")
        expected_digest = _scalar(self.conn, "SELECT source_manifest_sha256 FROM release")
        if digest != expected_digest:
            raise _Failed(figure, "the files differ from the release's source manifest")
        recorded = {str(key): value for key, value in self.build_counts()["records"].items()}
        found = {str(row[0]): int(row[5]) for row in rows}
        wrong = _mismatches(recorded, found)
        if wrong:
            raise _Failed(
                f"{figure}, {_plural(len(wrong), 'mismatch')}",
                f"record_count differs from the build's record for file id {_first(wrong)}",
            )
        return f"{figure}, {_n(sum(found.values()))} records, 0 mismatches"

    def source_file_rows(self) -> str:
        recorded_rows = self.build_counts()["rows"]
        total = 0
        wrong: list[str] = []
        for table in SOURCE_TABLES:
            found = {
                str(file_id): int(count)
                for file_id, count in self.conn.execute(
                    f"SELECT source_file_id, count(*) FROM {table} "  # noqa: S608
                    "WHERE source_file_id IS NOT NULL GROUP BY source_file_id"
                )
            }
            total += sum(found.values())
            recorded = recorded_rows.get(table)
            if not isinstance(recorded, dict):
                wrong.append(f"{table} (not recorded)")
                continue
            wrong.extend(f"{table}@{key}" for key in _mismatches(recorded, found))
        figure = f"{_n(total)} rows in {len(SOURCE_TABLES)} tables"
        if wrong:
            raise _Failed(
                f"{figure}, {_plural(len(wrong), 'mismatch')}",
                f"rows per source file differ from the build's record: {_first(wrong)}",
            )
        return f"{figure}, 0 mismatches"

    def table_counts(self) -> str:
        recorded = self.build_counts()["tables"]
        found = {
            table: int(_scalar(self.conn, f"SELECT count(*) FROM {table}"))  # noqa: S608
            for table in COUNTED_TABLES
        }
        figure = f"{_n(sum(found.values()))} rows in {len(found)} tables"
        wrong = _mismatches(recorded, found)
        if wrong:
            raise _Failed(
                f"{figure}, {_plural(len(wrong), 'mismatch')}",
                f"rows differ from the build's record in {', '.join(wrong)}",
            )
        return figure

    def group_counts(self) -> str:
        recorded = self.build_counts()["groups"]
        found = {
            str(group): {"files": int(files), "bytes": int(size), "records": int(records)}
            for group, files, size, records in self.conn.execute(
                "SELECT data_group, count(*), sum(bytes), sum(record_count) FROM source_file "
                "GROUP BY data_group"
            )
        }
        wrong = sorted(
            group
            for group in recorded.keys() | found.keys()
            if not isinstance(recorded.get(group), dict)
            or {key: recorded[group].get(key) for key in ("files", "bytes", "records")}
            != found.get(group)
        )
        figure = f"{_plural(len(found), 'data group')}"
        if wrong:
            raise _Failed(
                f"{figure}, {_plural(len(wrong), 'mismatch')}",
                f"files, bytes or records differ from the build report for {_first(wrong)}",
            )
        return f"{figure}, 0 mismatches"

    def ipc_validity(self) -> str:
        reference = _scalar(self.conn, "SELECT reference_date FROM release")
        if reference is None:
            raise _Failed("no reference date", "the release row is missing")
        codes = int(_scalar(self.conn, "SELECT count(*) FROM concept WHERE scheme = 'ipc'"))
        several = int(
            _scalar(
                self.conn,
                "SELECT count(*) FROM (SELECT r.concept_id FROM revision AS r "
                "JOIN concept AS c ON c.id = r.concept_id "
                "WHERE c.scheme = 'ipc' "
                "AND (r.valid_from IS NULL OR r.valid_from <= ?) "
                "AND (r.valid_to IS NULL OR ? <= r.valid_to) "
                "GROUP BY r.concept_id HAVING count(*) > 1)",
                (reference, reference),
            )
        )
        figure = (
            f"{_n(several)} of {_plural(codes, 'IPC code')} with 2+ revisions valid at {reference}"
        )
        if several:
            raise _Failed(figure, "a code has more than one revision valid at the reference date")
        return figure

    def amended_to(self) -> str:
        total, unresolved = self.conn.execute(
            "SELECT count(*), coalesce(sum("
            "fc.id IS NULL OR tc.id IS NULL "
            "OR (rel.from_revision_id IS NOT NULL "
            "    AND (fr.id IS NULL OR fr.concept_id <> rel.from_concept_id)) "
            "OR (rel.to_revision_id IS NOT NULL "
            "    AND (tr.id IS NULL OR tr.concept_id <> rel.to_concept_id))), 0) "
            "FROM relation AS rel "
            "LEFT JOIN concept AS fc ON fc.id = rel.from_concept_id "
            "LEFT JOIN concept AS tc ON tc.id = rel.to_concept_id "
            "LEFT JOIN revision AS fr ON fr.id = rel.from_revision_id "
            "LEFT JOIN revision AS tr ON tr.id = rel.to_revision_id "
            "WHERE rel.kind = 'amended_to'"
        ).fetchone()
        figure = f"{_n(int(unresolved))} of {_plural(int(total), 'amended_to relation')} unresolved"
        if unresolved:
            raise _Failed(figure, "an endpoint is missing or a revision is not its concept's")
        return figure

    def quarantine(self) -> str:
        """Every quarantined record of a file is findable: one ``quarantine`` segment each,
        with the same file and locator, and no segment without its record."""
        total, groups = self.conn.execute(
            "SELECT count(*), count(DISTINCT data_group) FROM quarantine"
        ).fetchone()
        figure = f"{_plural(int(total), 'quarantined record')} in {_plural(int(groups), 'group')}"
        missing = int(
            _scalar(
                self.conn,
                "SELECT count(*) FROM quarantine AS q WHERE q.source_file_id IS NOT NULL "
                "AND NOT EXISTS (SELECT 1 FROM document_text AS t JOIN document AS d "
                "ON d.id = t.document_id WHERE d.kind = 'quarantine' "
                "AND t.source_file_id = q.source_file_id AND t.locator = q.locator)",
            )
        )
        extra = int(
            _scalar(
                self.conn,
                "SELECT (SELECT count(*) FROM document_text AS t JOIN document AS d "
                "ON d.id = t.document_id WHERE d.kind = 'quarantine') - "
                "(SELECT count(*) FROM quarantine WHERE source_file_id IS NOT NULL)",
            )
        )
        if missing or extra:
            raise _Failed(
                figure, f"{missing} quarantined records without their segment, {extra} extra"
            )
        return figure

    def reference_only_unsearchable(self) -> str:
        """No text of a reference-only concept in ``text_fts`` or ``text_bigram``.

        Such texts should not exist at all, so the rows to probe are few: ``text_fts`` keeps
        one ``%_docsize`` row per indexed rowid (exact); the contentless ``text_bigram`` is
        asked, by rowid, for any of the bigram tokens of the text's body.
        """
        concepts = int(
            _scalar(self.conn, "SELECT count(*) FROM concept WHERE status <> 'canonical'")
        )
        texts = self.conn.execute(
            "SELECT t.id, t.body, EXISTS (SELECT 1 FROM text_fts_docsize AS d WHERE d.id = t.id) "
            "FROM concept AS c JOIN revision AS r ON r.concept_id = c.id "
            "JOIN text AS t ON t.revision_id = r.id WHERE c.status <> 'canonical'"
        ).fetchall()
        indexed = 0
        for text_id, body, in_trigram in texts:
            tokens = bigram_tokens(str(body)).split()
            in_bigram = bool(tokens) and (
                self.conn.execute(
                    "SELECT 1 FROM text_bigram WHERE text_bigram MATCH ? AND rowid = ?",
                    (" OR ".join(f'"{token}"' for token in tokens), text_id),
                ).fetchone()
                is not None
            )
            indexed += bool(in_trigram or in_bigram)
        figure = (
            f"{_plural(concepts, 'reference-only concept')}, {_plural(len(texts), 'text')}, "
            f"{_n(indexed)} indexed"
        )
        if indexed:
            raise _Failed(figure, "texts of reference-only concepts are searchable")
        return figure


def _varint(data: bytes) -> int:
    """An SQLite varint (big-endian, 7 bits a byte, the 9th byte whole) at the start of data."""
    value = 0
    for position, byte in enumerate(data[:9]):
        if position == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return value


Plan = list[tuple[str, Callable[[], str]]]


def _run(plan: Plan, *, gate: bool = False) -> list[ValidationCheck]:
    """Run checks in order, timing each; with ``gate``, an SQLite error in the first one
    propagates (the file is not a database at all: one ``open`` failure says it)."""
    results: list[ValidationCheck] = []
    for name, check in plan:
        started = time.perf_counter()
        try:
            figure = check()
        except _Failed as failure:
            ok, detail, figure = False, failure.detail, failure.figure
        except sqlite3.DatabaseError as exc:
            if gate and not results:
                raise
            ok, figure = False, "not measured"
            detail = "a table or column is missing" if "no such" in str(exc) else "query failed"
        except (TypeError, ValueError, AttributeError):
            # A hand-edited build_counts of the wrong shape, or values of the wrong type.
            ok, detail, figure = False, "unexpected values", "not measured"
        else:
            ok, detail = True, ""
        results.append(ValidationCheck(name, ok, detail, figure, time.perf_counter() - started))
    return results


def _connect(target: Path, *, read_only: bool) -> sqlite3.Connection:
    if read_only:
        conn = sqlite3.connect(f"{target.resolve().as_uri()}?mode=ro", uri=True)
    else:
        conn = sqlite3.connect(target, isolation_level=None)
    conn.execute("PRAGMA cache_size = -131072")
    return conn


def _fts_checks(target: Path) -> list[ValidationCheck]:
    """The FTS checks, on their own writable connection in a rolled-back transaction."""
    conn = _connect(target, read_only=False)
    try:
        checks = _Checks(conn)
        conn.execute("BEGIN")  # integrity-check writes nothing lasting; roll back regardless
        try:
            return _run([(f"fts_integrity:{t}", partial(checks.fts, t)) for t in FTS_TABLES])
        finally:
            conn.execute("ROLLBACK")
    finally:
        conn.close()


def _other_checks(target: Path) -> list[ValidationCheck]:
    conn = _connect(target, read_only=True)
    try:
        checks = _Checks(conn)
        return _run(
            [
                ("quick_check", checks.quick_check),
                ("foreign_key_check", checks.foreign_keys),
                ("schema_version", checks.schema_version),
                ("release_row", checks.release_row),
                ("copyright", checks.copyright),
                ("source_files", checks.source_files),
                ("source_file_rows", checks.source_file_rows),
                ("table_counts", checks.table_counts),
                ("group_counts", checks.group_counts),
                ("ipc_valid_revisions", checks.ipc_validity),
                ("amended_to_resolved", checks.amended_to),
                ("reference_only_unsearchable", checks.reference_only_unsearchable),
                ("quarantine", checks.quarantine),
            ],
            gate=True,
        )
    finally:
        conn.close()


def _run_checks(target: Path) -> list[ValidationCheck]:
    """All checks; the FTS ones (about half the time) in a second thread.

    SQLite releases the GIL while it works, so on two cores validation takes about as long
    as the slower half. The FTS connection holds a RESERVED lock at most, which readers
    do not wait for, and it never commits.
    """
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="pmgs-validate") as pool:
        fts = pool.submit(_fts_checks, target)
        try:
            others = _other_checks(target)
        finally:
            fts_results = fts.result()
    by_name = {check.name: check for check in (*others, *fts_results)}
    return [by_name[name] for name in CHECK_NAMES]


def validate_database(path: str | os.PathLike[str], *, writable: bool = False) -> ValidationReport:
    """Check the database at ``path``; never raises for a bad database, reports instead.

    ``writable=True`` means the file is a private staging copy that may be opened for
    writing (the FTS checks need it; nothing is committed). Otherwise the file is copied to
    a temporary directory first, so a promoted database is never opened for writing.
    """
    started = time.perf_counter()
    source = Path(path)
    checks: list[ValidationCheck] = []
    if not source.is_file():
        checks.append(ValidationCheck("open", False, "database file not found", "no file"))
    else:
        with tempfile.TemporaryDirectory(prefix="pmgs-validate-") as scratch:
            target = source
            if not writable:
                target = Path(scratch) / "copy.sqlite"
                shutil.copyfile(source, target)
            try:
                checks.extend(_run_checks(target))
            except sqlite3.Error:
                checks.append(
                    ValidationCheck(
                        "open", False, "the file is not a readable SQLite database", "not read"
                    )
                )
    return ValidationReport(source.name, checks, time.perf_counter() - started)
