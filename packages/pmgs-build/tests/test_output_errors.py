"""Which errors mean that the output could not be written: real SQLite and OS errors.

The full-disk case of a whole build (``RLIMIT_FSIZE``, a full tmpfs) is in
tests-reliability/test_disk_full.py; this is the mapping itself, against errors provoked for
real (``max_page_count`` makes SQLite report a full database exactly as a full disk does).
"""

from __future__ import annotations

import errno
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from pmgs_build import IssueCode
from pmgs_build.database.output_errors import write_failure


def _full_database_error(path: Path) -> sqlite3.Error:
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE t (x BLOB)")
        conn.execute("PRAGMA max_page_count = 3")
        with pytest.raises(sqlite3.Error) as raised:
            conn.execute("INSERT INTO t VALUES (zeroblob(100000))")
    return raised.value


def test_a_full_database_is_an_output_write_failure(tmp_path: Path) -> None:
    error = _full_database_error(tmp_path / "full.sqlite")
    assert error.sqlite_errorname == "SQLITE_FULL"
    failure = write_failure(error)
    assert failure is not None
    assert [issue.code for issue in failure.issues] == [IssueCode.OUTPUT_WRITE_FAILED]


@pytest.mark.parametrize(
    ("number", "mapped"),
    [
        (errno.ENOSPC, True),
        (errno.EFBIG, True),
        (errno.EDQUOT, True),
        (errno.EROFS, True),
        (errno.ENOENT, False),
        (errno.EACCES, False),
        (errno.EIO, False),  # may be a read of the package: left unexpected
    ],
)
def test_os_errors(number: int, mapped: bool) -> None:
    failure = write_failure(OSError(number, "x"))
    assert (failure is not None) is mapped


def test_other_errors_are_not_mapped(tmp_path: Path) -> None:
    with closing(sqlite3.connect(tmp_path / "x.sqlite")) as conn:
        with pytest.raises(sqlite3.Error) as syntax:
            conn.execute("SELEC 1")
        conn.execute("CREATE TABLE t (x PRIMARY KEY)")
        with pytest.raises(sqlite3.Error) as constraint:
            conn.execute("INSERT INTO t VALUES (1), (1)")
    assert write_failure(syntax.value) is None
    assert write_failure(constraint.value) is None
    assert write_failure(ValueError("no")) is None
