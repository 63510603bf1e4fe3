"""The checks themselves: what each one asks the database and what counts as a failure.

Each check of :class:`Checks` returns the figure it measured (``0 violations``,
``174,811 rows``) or raises :class:`CheckFailed` with that figure and a short reason.
Figures and reasons name tables, ids and counts, never package text. Which checks run, on
which connection and in which order is :mod:`pmgs_build.validate`'s business.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from pmgs_build.database.counts import BUILD_COUNTS_KEY, COUNTED_TABLES, SOURCE_TABLES
from pmgs_build.source.files import SourceFile
from pmgs_build.source.inventory import manifest_text
from pmgs_core import SCHEMA_VERSION
from pmgs_core.building import bigram_tokens

__all__ = ["FTS_TABLES", "CheckFailed", "Checks"]

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

_NO_BUILD_COUNTS: Final = f"no {BUILD_COUNTS_KEY} in metadata"


class CheckFailed(Exception):
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


def _none_found(count: int, figure: str, detail: str) -> str:
    """``figure`` when a check's count of bad rows is zero, else its failure."""
    if count:
        raise CheckFailed(figure, detail)
    return figure


def _agreeing(figure: str, wrong: list[str], detail: str) -> str:
    """``figure`` when nothing differs from the build's record; otherwise fail, counting the
    mismatches in the figure and naming them in ``detail`` (which ends where they go)."""
    if wrong:
        raise CheckFailed(f"{figure}, {_plural(len(wrong), 'mismatch')}", detail + _first(wrong))
    return figure


class Checks:
    """The checks of one open connection; each method returns its figure or raises
    :class:`CheckFailed`. A check's method is named as the check is in the report (the FTS
    checks, one per table, share :meth:`fts`), so the runner needs no second list of them."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._counts: dict[str, Any] | None = None
        self._counts_read = False

    def _count(self, sql: str, params: Iterable[object] = ()) -> int:
        return int(_scalar(self.conn, sql, params))

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
            raise CheckFailed("no record", _NO_BUILD_COUNTS)
        return self._counts

    def quick_check(self) -> str:
        rows = self.conn.execute("PRAGMA quick_check").fetchall()
        if rows != [("ok",)]:
            raise CheckFailed(
                _plural(len(rows), "problem"), "SQLite reports damaged pages or records"
            )
        pages = self._count("PRAGMA page_count")
        return f"0 problems in {_plural(pages, 'page')}"

    def foreign_key_check(self) -> str:
        rows = self.conn.execute("PRAGMA foreign_key_check").fetchall()
        if rows:
            tables = sorted({str(row[0]) for row in rows})
            raise CheckFailed(_plural(len(rows), "violation"), f"in {', '.join(tables)}")
        return "0 violations"

    def fts(self, table: str) -> str:
        content = _FTS_CONTENT[table]
        try:
            self.conn.execute(f"INSERT INTO {table}({table}) VALUES('integrity-check')")
        except sqlite3.Error as exc:
            # The SQLite message names the table only; keep the category, not the text.
            if "no such table" in str(exc):
                raise CheckFailed("no table", "table missing") from None
            raise CheckFailed("index damaged", "index does not match its content") from None
        rows = self._count(f"SELECT count(*) FROM {content}")  # noqa: S608
        indexed = self._indexed_rows(table)
        if indexed != rows:
            raise CheckFailed(
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
        user_version = self._count("PRAGMA user_version")
        meta = _scalar(self.conn, "SELECT value FROM metadata WHERE key = 'schema_version'")
        if user_version != SCHEMA_VERSION or meta != str(SCHEMA_VERSION):
            raise CheckFailed(
                f"{user_version}/{meta}", f"expected {SCHEMA_VERSION} in user_version and metadata"
            )
        return str(SCHEMA_VERSION)

    def release_row(self) -> str:
        rows = self.conn.execute(
            "SELECT release_id, reference_date, source_manifest_sha256 FROM release"
        ).fetchall()
        if len(rows) != 1:
            raise CheckFailed(_plural(len(rows), "release row"), "exactly one release row expected")
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
            raise CheckFailed("1 release row", f"metadata differs: {', '.join(differ)}")
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
            raise CheckFailed(figure, "exactly one COPYRGHT file expected")
        if files[0][0] != "parsed":
            raise CheckFailed(figure, f"the COPYRGHT file is {files[0][0]}, not parsed")
        if len(attributions) != 1 or not attributions[0]:
            raise CheckFailed(figure, "empty attribution")
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
            raise CheckFailed(figure, "the files differ from the release's source manifest")
        recorded = {str(key): value for key, value in self.build_counts()["records"].items()}
        found = {str(row[0]): int(row[5]) for row in rows}
        _agreeing(
            figure,
            _mismatches(recorded, found),
            "record_count differs from the build's record for file id ",
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
        _agreeing(figure, wrong, "rows per source file differ from the build's record: ")
        return f"{figure}, 0 mismatches"

    def table_counts(self) -> str:
        recorded = self.build_counts()["tables"]
        found = {
            table: self._count(f"SELECT count(*) FROM {table}")  # noqa: S608
            for table in COUNTED_TABLES
        }
        figure = f"{_n(sum(found.values()))} rows in {len(found)} tables"
        wrong = _mismatches(recorded, found)
        if wrong:
            raise CheckFailed(
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
        _agreeing(figure, wrong, "files, bytes or records differ from the build report for ")
        return f"{figure}, 0 mismatches"

    def ipc_valid_revisions(self) -> str:
        reference = _scalar(self.conn, "SELECT reference_date FROM release")
        if reference is None:
            raise CheckFailed("no reference date", "the release row is missing")
        codes = self._count("SELECT count(*) FROM concept WHERE scheme = 'ipc'")
        several = self._count(
            "SELECT count(*) FROM (SELECT r.concept_id FROM revision AS r "
            "JOIN concept AS c ON c.id = r.concept_id "
            "WHERE c.scheme = 'ipc' "
            "AND (r.valid_from IS NULL OR r.valid_from <= ?) "
            "AND (r.valid_to IS NULL OR ? <= r.valid_to) "
            "GROUP BY r.concept_id HAVING count(*) > 1)",
            (reference, reference),
        )
        return _none_found(
            several,
            f"{_n(several)} of {_plural(codes, 'IPC code')} with 2+ revisions valid at {reference}",
            "a code has more than one revision valid at the reference date",
        )

    def amended_to_resolved(self) -> str:
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
        return _none_found(
            int(unresolved),
            f"{_n(int(unresolved))} of {_plural(int(total), 'amended_to relation')} unresolved",
            "an endpoint is missing or a revision is not its concept's",
        )

    def quarantine(self) -> str:
        """Every quarantined record of a file is findable: one ``quarantine`` segment each,
        with the same file and locator, and no segment without its record."""
        total, groups = self.conn.execute(
            "SELECT count(*), count(DISTINCT data_group) FROM quarantine"
        ).fetchone()
        # One set difference (sorted once), not a probe per record: up to 100,000 records
        # may be quarantined, and document_text has no index on (file, locator).
        missing = self._count(
            "SELECT count(*) FROM (SELECT source_file_id, locator FROM quarantine "
            "WHERE source_file_id IS NOT NULL EXCEPT SELECT t.source_file_id, t.locator "
            "FROM document_text AS t JOIN document AS d ON d.id = t.document_id "
            "WHERE d.kind = 'quarantine')",
        )
        extra = self._count(
            "SELECT (SELECT count(*) FROM document_text AS t JOIN document AS d "
            "ON d.id = t.document_id WHERE d.kind = 'quarantine') - "
            "(SELECT count(*) FROM quarantine WHERE source_file_id IS NOT NULL)",
        )
        return _none_found(
            missing or extra,
            f"{_plural(int(total), 'quarantined record')} in {_plural(int(groups), 'group')}",
            f"{missing} quarantined records without their segment, {extra} extra",
        )

    def reference_only_unsearchable(self) -> str:
        """No text of a reference-only concept in ``text_fts`` or ``text_bigram``.

        Such texts should not exist at all, so the rows to probe are few: ``text_fts`` keeps
        one ``%_docsize`` row per indexed rowid (exact); the contentless ``text_bigram`` is
        asked, by rowid, for any of the bigram tokens of the text's body.
        """
        concepts = self._count("SELECT count(*) FROM concept WHERE status <> 'canonical'")
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
        return _none_found(
            indexed,
            f"{_plural(concepts, 'reference-only concept')}, {_plural(len(texts), 'text')}, "
            f"{_n(indexed)} indexed",
            "texts of reference-only concepts are searchable",
        )


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
