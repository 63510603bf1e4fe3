"""``pmgs check``: are the codes of a saved search formula still valid in a release?"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Final

import click

from pmgs_cli.commands.release_choice import open_release
from pmgs_cli.common import CliFailure, Query, emit_json, query_options, scheme_option
from pmgs_cli.exits import EXIT_NEGATIVE, EXIT_OK, EXIT_USAGE

__all__ = ["check"]

_MAX_BYTES: Final = 8_000_000
"""Input read at most (4 bytes a character over the store's 2,000,000 characters)."""


_STDIN_HINT: Final = (
    "Give the formula as a file: `pmgs check formula.txt`, or pipe it in: "
    "`pmgs check - < formula.txt`."
)


def _stdin_bytes() -> bytes:
    """Standard input, or a usage error when there is none to read.

    A closed descriptor 0 (``pmgs check - <&-``, some service managers) leaves
    ``sys.stdin`` None, and a detached one fails on read: both are bad input (exit 2,
    ``details.reason`` ``STDIN_CLOSED``), not an internal error. A terminal is refused too:
    waiting for a formula nobody knows to type looks like a hang.
    """
    stdin = sys.stdin
    buffer = getattr(stdin, "buffer", None) if stdin is not None else None
    if buffer is None:
        raise CliFailure(
            "INVALID_ARGUMENT",
            "standard input is closed: there is no formula to read from '-'",
            details={"reason": "STDIN_CLOSED"},
            hint=_STDIN_HINT,
        )
    try:
        if stdin.isatty():
            raise CliFailure(
                "INVALID_ARGUMENT",
                "give a FILE, or pipe the formula in (pmgs check - < f.txt)",
                details={"reason": "STDIN_IS_TERMINAL"},
                hint=_STDIN_HINT,
            )
        data: bytes = buffer.read(_MAX_BYTES + 1)
    except (OSError, ValueError):  # a descriptor closed under us, a closed file object
        raise CliFailure(
            "INVALID_ARGUMENT",
            "standard input could not be read: there is no formula to read from '-'",
            details={"reason": "STDIN_CLOSED"},
            hint=_STDIN_HINT,
        ) from None
    return data


def _read(source: str) -> str:
    """The input text: UTF-8 (BOM allowed), else CP932 as Japanese Windows tools save it."""
    if source == "-":
        data = _stdin_bytes()
    else:
        path = Path(source)
        if not path.is_file():
            raise CliFailure("INVALID_ARGUMENT", "the input file does not exist")
        with path.open("rb") as handle:
            data = handle.read(_MAX_BYTES + 1)
    if len(data) > _MAX_BYTES:
        raise CliFailure("INVALID_QUERY", f"the input is larger than {_MAX_BYTES:,} bytes")
    for codec in ("utf-8-sig", "cp932"):
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    raise CliFailure("INVALID_ARGUMENT", "the input is neither UTF-8 nor CP932 text")


def _exit_code(record: Any) -> int:
    if any(item["status"] == "invalid_code" for item in record["items"]):
        return EXIT_USAGE
    return EXIT_NEGATIVE if record["needs_attention"] else EXIT_OK


@click.command()
@click.argument("source", metavar="[FILE | -]", default="-")
@click.option(
    "--release",
    default="current",
    show_default=True,
    help="A release id, 'current' or a database file: the release to check against.",
)
@click.option(
    "--since",
    default=None,
    metavar="DATE",
    help="ISO date: present FI codes "
    "with a revision record on or after it are reported as changed.",
)
@scheme_option(
    "Scheme of untagged codes (else read from the shape; FI/IPC look-alikes "
    "are reported as ambiguous)."
)
@click.option(
    "--input",
    "input_kind",
    type=click.Choice(["formula", "lines", "csv"]),
    default=None,
    help="How to read the input (default: decided from the text).",
)
@click.option(
    "--column",
    default=None,
    metavar="N|NAME",
    help="Read this CSV column (1-based number or header name).",
)
@click.option(
    "--annotate",
    is_flag=True,
    help="Print the input with a marker after each code that needs attention (not with --json).",
)
@query_options
def check(
    source: str,
    release: str,
    since: str | None,
    scheme: str | None,
    input_kind: str | None,
    column: str | None,
    annotate: bool,
    q: Query,
) -> None:
    """Check the codes of a search formula, a CSV column or a list against a release.

    Reads J-PlatPat-style formulas (G06F3/048/FI + 5H322AA09/FT * [H01M10/052/IP]; F-terms
    also as 5H322/AA09), a CSV column (--column) or one code a line, at most 10,000 codes.
    Each code is reported with its position and status: present, changed (with --since),
    abolished (with the revision record's date, titles and every transfer target, and its
    source file and locator), not_found, not_valid_at_release (IPC), theme_not_present
    (F-term), ambiguous_scheme, invalid_code. Nothing is rewritten.

    Exit 0: all present; 1: some need attention; 2: bad input (syntax, tags, shapes).
    """
    if annotate and q.as_json:
        raise CliFailure("INVALID_ARGUMENT", "--annotate is for people; --json has positions")
    text = _read(source)
    store = open_release(q, release)
    with store:
        record = store.check_codes(
            text, since=since, scheme=scheme, input_kind=input_kind, column=column
        )
    if q.as_json:
        emit_json(record)
    else:
        from pmgs_cli import render_check

        if annotate:
            render_check.annotated(text, record)
        else:
            render_check.check_table(record)
    sys.exit(_exit_code(record))
