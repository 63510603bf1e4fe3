"""``validate_database``: structural checks of a finished reference database.

Setup runs these on the staging copy before it is promoted, and ``pmgs validate`` runs them on
any file. The checks are the ones SQLite and the schema can prove without knowing the source
package: page-level integrity, foreign keys, the four FTS5 indexes against their content, the
schema version and exactly one attributed release row. Content checks against the source
package (issue 5) will extend this module.

FTS5's ``integrity-check`` is an ``INSERT`` command and needs a writable connection. A
database that is already promoted must never be opened for writing, so unless the caller
says the file is a private staging copy (``writable=True``), the checks run on a temporary
copy of it.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from pmgs_core import SCHEMA_VERSION

__all__ = ["FTS_TABLES", "ValidationCheck", "ValidationReport", "validate_database"]

FTS_TABLES: Final = ("text_fts", "document_text_fts", "text_bigram", "document_text_bigram")
"""The FTS5 tables whose index must agree with their content."""


@dataclass(frozen=True, slots=True)
class ValidationCheck:
    """One named check: ``ok`` or not, with a short reason that holds no path or raw text."""

    name: str
    ok: bool
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"name": self.name, "ok": self.ok, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """All checks of one database; :attr:`ok` only when every check passed."""

    database: str
    checks: list[ValidationCheck] = field(default_factory=list)

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
            "checks": [check.to_dict() for check in self.checks],
        }


def _run_checks(conn: sqlite3.Connection) -> list[ValidationCheck]:
    checks: list[ValidationCheck] = []
    rows = conn.execute("PRAGMA integrity_check").fetchall()
    ok = rows == [("ok",)]
    checks.append(
        ValidationCheck("integrity_check", ok, "" if ok else f"{len(rows)} problem(s) reported")
    )
    rows = conn.execute("PRAGMA foreign_key_check").fetchall()
    checks.append(
        ValidationCheck(
            "foreign_key_check", not rows, "" if not rows else f"{len(rows)} violation(s)"
        )
    )
    conn.execute("BEGIN")
    try:
        for table in FTS_TABLES:
            try:
                conn.execute(f"INSERT INTO {table}({table}) VALUES('integrity-check')")
            except sqlite3.Error as exc:
                # The SQLite message names the table only; keep the category, not the text.
                reason = "index does not match its content"
                if "no such table" in str(exc):
                    reason = "table missing"
                checks.append(ValidationCheck(f"fts_integrity:{table}", False, reason))
            else:
                checks.append(ValidationCheck(f"fts_integrity:{table}", True))
    finally:
        conn.execute("ROLLBACK")
    user_version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    try:
        meta_row = conn.execute(
            "SELECT value FROM metadata WHERE key = 'schema_version'"
        ).fetchone()
    except sqlite3.Error:
        meta_row = None
    meta_version = str(meta_row[0]) if meta_row else None
    schema_ok = user_version == SCHEMA_VERSION and meta_version == str(SCHEMA_VERSION)
    checks.append(
        ValidationCheck(
            "schema_version",
            schema_ok,
            "" if schema_ok else f"expected {SCHEMA_VERSION}, found {user_version}/{meta_version}",
        )
    )
    try:
        releases = conn.execute("SELECT release_id, attribution FROM release").fetchall()
    except sqlite3.Error:
        releases = []
    if len(releases) != 1:
        checks.append(ValidationCheck("release_row", False, f"{len(releases)} release rows"))
    elif not str(releases[0][1] or "").strip():
        checks.append(ValidationCheck("release_row", False, "empty attribution"))
    else:
        checks.append(ValidationCheck("release_row", True))
    return checks


def validate_database(path: str | os.PathLike[str], *, writable: bool = False) -> ValidationReport:
    """Check the database at ``path``; never raises for a bad database, reports instead.

    ``writable=True`` means the file is a private staging copy that may be opened for
    writing (the FTS checks need it; nothing is committed). Otherwise the file is copied to
    a temporary directory first, so a promoted database is never opened for writing.
    """
    source = Path(path)
    report = ValidationReport(database=source.name)
    if not source.is_file():
        report.checks.append(ValidationCheck("open", False, "database file not found"))
        return report
    with tempfile.TemporaryDirectory(prefix="pmgs-validate-") as scratch:
        target = source
        if not writable:
            target = Path(scratch) / "copy.sqlite"
            shutil.copyfile(source, target)
        try:
            conn = sqlite3.connect(target, isolation_level=None)
        except sqlite3.Error:
            report.checks.append(ValidationCheck("open", False, "the file cannot be opened"))
            return report
        try:
            report.checks.extend(_run_checks(conn))
        except sqlite3.Error:
            report.checks.append(
                ValidationCheck("open", False, "the file is not a readable SQLite database")
            )
        finally:
            conn.close()
    return report
