"""``pmgs check``: are the codes of a saved search formula still valid in a release?"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import click

from pmgs_cli.commands.release_choice import open_release
from pmgs_cli.common import (
    CliFailure,
    Query,
    cli_message,
    emit_json,
    query_options,
    scheme_option,
)
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
            raise CliFailure(
                "INVALID_ARGUMENT",
                "the input file does not exist",
                details={"reason": "FILE_NOT_FOUND"},
                hint=_STDIN_HINT,
            )
        with path.open("rb") as handle:
            data = handle.read(_MAX_BYTES + 1)
    if len(data) > _MAX_BYTES:
        raise CliFailure(
            "INVALID_QUERY",
            f"the input is larger than {_MAX_BYTES:,} bytes",
            details={"reason": "INPUT_TOO_LARGE"},
            hint=check_hint("INVALID_QUERY", {"reason": "INPUT_TOO_LARGE"}),
        )
    for codec in ("utf-8-sig", "cp932"):
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    raise CliFailure(
        "INVALID_ARGUMENT",
        "the input is neither UTF-8 nor CP932 text",
        details={"reason": "INPUT_ENCODING"},
        hint="Save the formula as UTF-8 (or CP932) text and check the file: "
        "`pmgs check formula.txt`.",
    )


def check_hint(code: str, details: Mapping[str, Any]) -> str | None:
    """The next step for an error of ``check``'s input, naming only commands and options
    that exist (a test runs each one); None leaves the general hint of the code.

    The general hints of INVALID_QUERY and TOO_MANY_ITEMS speak of search text and notes;
    someone whose formula was refused needs to hear about formulas.
    """
    reason = details.get("reason")
    if code == "TOO_MANY_ITEMS":
        most = int(details.get("max_codes", 10_000))
        return (
            f"check reads at most {most:,} codes a run: split the input into files of "
            f"at most {most:,} codes and check each (`pmgs check part1.txt`)."
        )
    if reason == "NO_CODES":
        return (
            "The input is empty or blank: give a file with a formula or one code a line "
            "(`pmgs check formula.txt`), or pipe one in: `echo 'G06F3/048/FI' | pmgs check -`."
        )
    if reason == "FORMULA_SYNTAX":
        return (
            "Join codes with + (or), * (and), - (not) and balanced [ ] or ( ) at the line and "
            "column given; a list of one code a line is read with "
            "`pmgs check formula.txt --input lines`."
        )
    if reason == "FORMULA_UNKNOWN_TAG":
        return (
            "Tag codes with /FI, /FT or /IP only; untagged codes take one scheme with "
            "`pmgs check formula.txt --scheme fi`."
        )
    if reason == "INPUT_TOO_LARGE":
        return "Split the input into smaller files and check each (`pmgs check part1.txt`)."
    if reason == "CSV_COLUMN_NOT_FOUND":
        return (
            "Name the column by its 1-based number or by a name of the header row: "
            "`pmgs check codes.csv --column 2`."
        )
    if code == "INVALID_ARGUMENT" and "since" in str(details.get("argument", "")):
        return "Write --since as an ISO date: `pmgs check formula.txt --since 2026-04-01`."
    return None


def _checked(store: Any, text: str, **arguments: Any) -> Any:
    """The store's ``check_codes``; its input errors come back with ``check``'s hints."""
    from pmgs_core import PMGSQueryError

    try:
        return store.check_codes(text, **arguments)
    except PMGSQueryError as error:
        details = dict(error.details or {})
        if error.code == "INVALID_ARGUMENT" and "since" in error.message:
            details.setdefault("argument", "since")
        raise CliFailure(
            error.code,
            cli_message(error.message),
            details=error.details,
            hint=check_hint(error.code, details),
        ) from None


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
        raise CliFailure(
            "INVALID_ARGUMENT",
            "--annotate is for people; --json has positions",
            hint="Use one of them: `pmgs check formula.txt --annotate` or "
            "`pmgs check formula.txt --json`.",
        )
    text = _read(source)
    store = open_release(q, release, naming="`--release`")
    with store:
        record = _checked(
            store, text, since=since, scheme=scheme, input_kind=input_kind, column=column
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
