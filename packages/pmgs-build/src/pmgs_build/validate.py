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

from pmgs_build.build_counts import (
    BUILD_COUNTS_KEY,
    COUNTED_TABLES,
    SOURCE_TABLES,
    encode_build_counts,
)
from pmgs_build.validate_checks import FTS_TABLES, CheckFailed, Checks
from pmgs_build.validate_report import ValidationCheck, ValidationReport

__all__ = [
    "BUILD_COUNTS_KEY",
    "CHECK_NAMES",
    "COUNTED_TABLES",
    "FTS_TABLES",
    "SOURCE_TABLES",
    "ValidationCheck",
    "ValidationReport",
    "encode_build_counts",
    "validate_database",
]

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
