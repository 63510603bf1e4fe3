"""The exit codes of ``pmgs`` (one table, docs/cli.md) and the quiet exit of a closed pipe.

A leaf of the CLI: the renderers and the option plumbing both exit through it.
"""

from __future__ import annotations

import os
import sys
from typing import Final, NoReturn

__all__ = [
    "EXIT_DATABASE",
    "EXIT_INTERNAL",
    "EXIT_NEGATIVE",
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_SETUP",
    "EXIT_USAGE",
    "quiet_broken_pipe",
]

EXIT_OK: Final = 0
"""Success."""
EXIT_NEGATIVE: Final = 1
"""A well-formed negative answer (``lookup`` not_found / version_not_found /
not_valid_at_release, a failed ``doctor`` or ``validate``); the record is still printed."""
EXIT_USAGE: Final = 2
"""Bad input: click usage errors and every ``INVALID_*`` code of the store."""
EXIT_DATABASE: Final = 3
"""No usable database: missing, bad pointer, pointer mismatch, schema, corrupt file."""
EXIT_NOT_FOUND: Final = 4
"""The database is fine but cannot answer: unknown release/document/selector, multiple
active revisions, response too large."""
EXIT_SETUP: Final = 5
"""``setup``/``build`` failed; the pointer and existing databases are unchanged."""
EXIT_INTERNAL: Final = 70
"""An unexpected internal error (a bug); rerun with ``--debug`` for the traceback."""


def quiet_broken_pipe() -> NoReturn:
    """The reader of stdout went away (``pmgs search … | head``): exit 0 without a word.

    The answer was delivered as far as it was wanted; exit 1 would read as a negative answer
    in a script. stdout is pointed at the null device so that the interpreter's final flush
    does not fail a second time.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a descriptor
        pass
    sys.exit(EXIT_OK)
