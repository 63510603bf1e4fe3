"""Which checks run, on which connection and in which order (``validate_database``).

``build_database`` runs them on its temporary file, setup again on the staging copy and
``pmgs validate`` on any file; every check reports a figure whether it passes or not (the
list, and why ``quick_check``: docs/database.md). FTS5's integrity check needs a writable
connection, so unless the caller says the file is a private staging copy the checks run on
a temporary copy: a promoted database is never opened for writing.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Final

from pmgs_build.validate._checks import FTS_TABLES, CheckFailed, Checks
from pmgs_build.validate._report import ValidationCheck, ValidationReport

__all__ = ["CHECK_NAMES", "validate_database"]

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

_FTS_NAMES: Final = frozenset(f"fts_integrity:{table}" for table in FTS_TABLES)
"""The checks that run on their own writable connection (see :func:`_fts_checks`)."""


Plan = list[tuple[str, Callable[[], str]]]


def _run(plan: Plan, *, gate: bool = False) -> list[ValidationCheck]:
    """Run checks in order, timing each; with ``gate``, an SQLite error in the first one
    propagates (the file is not a database at all: one ``open`` failure says it)."""
    results: list[ValidationCheck] = []
    for name, check in plan:
        started = time.perf_counter()
        try:
            figure = check()
        except CheckFailed as failure:
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
        checks = Checks(conn)
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
        checks = Checks(conn)
        plan = [(name, getattr(checks, name)) for name in CHECK_NAMES if name not in _FTS_NAMES]
        return _run(plan, gate=True)
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
