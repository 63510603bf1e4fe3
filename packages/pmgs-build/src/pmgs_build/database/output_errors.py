"""Which errors of a build mean that its output could not be written (ADR 0014).

Kept apart from the pipeline: it is a property of the file system under the output, not of
any stage, and setup relies on the same code to tell a full disk from a bad package.
"""

from __future__ import annotations

import errno
import sqlite3
from typing import Final

from pmgs_build.build_issues import BuildError, BuildIssue, IssueCode

__all__ = ["write_failure"]

_WRITE_ERRNOS: Final = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EROFS})
_SQLITE_WRITE_ERRORS: Final = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_READONLY")


def write_failure(error: BaseException) -> BuildError | None:
    """``OUTPUT_WRITE_FAILED`` when ``error`` is the output's file system refusing a write.

    Every SQLite error of the build comes from the temporary database (the package is read
    through Python files), so a full, size-limited or failing file system shows up as
    ``SQLITE_FULL`` / ``SQLITE_IOERR*`` there, or as ``ENOSPC`` / ``EFBIG`` / ``EDQUOT`` from
    the hard link that publishes it. A disk-full is the user's to fix, not a package problem
    or a builder bug, so it gets its own code rather than a traceback.
    """
    if isinstance(error, sqlite3.Error):
        name = str(getattr(error, "sqlite_errorname", ""))
        if name.startswith(_SQLITE_WRITE_ERRORS):
            return _fail(f"the output could not be written: {error} ({name})")
    elif isinstance(error, OSError) and error.errno in _WRITE_ERRNOS:
        return _fail(f"the output could not be written: {error.strerror or error}")
    return None


def _fail(message: str) -> BuildError:
    return BuildError([BuildIssue("error", IssueCode.OUTPUT_WRITE_FAILED, message)])
