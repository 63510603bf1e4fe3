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
    "EXIT_OUTPUT",
    "EXIT_SETUP",
    "EXIT_USAGE",
    "output_failed",
    "quiet_broken_pipe",
    "stdout_broken",
    "write_failed",
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
EXIT_OUTPUT: Final = 74
"""stdout cannot be written (a full disk, a device that refuses writes): ``STDOUT_WRITE_FAILED``
on stderr (sysexits' EX_IOERR). A closed pipe is not this: see :func:`quiet_broken_pipe`."""

STDOUT_WRITE_FAILED: Final = "STDOUT_WRITE_FAILED"


def stdout_broken() -> bool:
    """Whether stdout refuses what it holds: a write that failed left its bytes in the
    buffer, so flushing again fails again (an error from anything else flushes cleanly)."""
    stream = sys.stdout
    if stream is None:
        return False
    try:
        stream.flush()
    except (OSError, ValueError):
        return True
    return False


_WRITERS: Final = frozenset(
    {("click.utils", "echo"), ("rich.console", "_write_buffer"), ("rich.console", "_check_buffer")}
)
"""The functions that write the CLI's output: an ``OSError`` raised in one (not below it, in a
file it opened) is the output refusing its bytes."""


def write_failed(exc: BaseException) -> bool:
    """Whether ``exc`` is the output refusing a write: raised by one of the writers, or
    stdout still refusing what it holds."""
    if not isinstance(exc, OSError) or isinstance(exc, BrokenPipeError):
        return False
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        frame = tb.tb_frame
        if (frame.f_globals.get("__name__"), frame.f_code.co_name) in _WRITERS:
            return True
    return stdout_broken()


def output_failed(exc: BaseException | None = None) -> int:
    """Say on stderr that stdout cannot be written, point stdout at the null device (so that
    the interpreter's last flush does not fail again) and return :data:`EXIT_OUTPUT`."""
    reason = getattr(exc, "strerror", None) or "the write failed"
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # pragma: no cover - stdout without a descriptor
        pass
    try:
        sys.stderr.write(
            f"error {STDOUT_WRITE_FAILED}: the output cannot be written to stdout ({reason})\n"
            "hint: Free space on the device stdout goes to, or send the output elsewhere.\n"
        )
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # pragma: no cover - stderr gone too
        pass
    return EXIT_OUTPUT


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
