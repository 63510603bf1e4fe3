"""What every ``pmgs`` subcommand shares: options, JSON output, error reporting, exit codes.

Kept free of Rich and pmgs-build imports: ``pmgs lookup --json`` must start cold in ≤ 0.3 s, so
this module costs no more than click and the standard library (ADR 0001).
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, NoReturn, TypeVar, cast

import click

from pmgs_cli.exits import (
    EXIT_DATABASE,
    EXIT_INTERNAL,
    EXIT_NEGATIVE,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_SETUP,
    EXIT_USAGE,
    quiet_broken_pipe,
)
from pmgs_core import ERROR_CATEGORIES

__all__ = [
    "EXIT_OK",  # for the notes commands; the other exit codes come from pmgs_cli.exits
    "NEGATIVE_MATCH_STATUSES",
    "CliFailure",
    "Options",
    "Query",
    "cli_message",
    "emit_json",
    "exit_code_for",
    "handle_errors",
    "hint_for",
    "query_options",
]

_DATABASE_CODES: Final = frozenset(
    code for code, category in ERROR_CATEGORIES.items() if category == "database"
)
_NOT_FOUND_CODES: Final = frozenset(
    code for code, category in ERROR_CATEGORIES.items() if category in {"not_found", "unanswerable"}
)

_HINTS: Final[Mapping[str, str]] = {
    "INVALID_SCHEME": "Use one of: fi, fterm, ipc.",
    "INVALID_CODE": "Check the code; notations such as 'G06F3/048', 'G06F 3/048' and "
    "full-width forms are accepted.",
    "INVALID_EDITION": "Only IPC has editions (8U, 8B, 7, 7E, 6, 5, 4).",
    "INVALID_VERSION": "Only IPC has versions (--ipc-version 2006.01).",
    "INVALID_LIMIT": "Limits are integers from 1 to 200.",
    "INVALID_OFFSET": "Offsets are integers of 0 or more; use next_offset from the last page.",
    "INVALID_QUERY": "Give a non-empty search text.",
    "INVALID_DOCUMENT_SELECTOR": "Give at most one of --page, --section, --locator.",
    "DATABASE_NOT_FOUND": "Run `pmgs setup SOURCE` (or `pmgs demo`), or pass --db / --data-dir.",
    "INVALID_POINTER": "state/current.json is damaged; run `pmgs setup SOURCE` again.",
    "POINTER_MISMATCH": "The database does not match state/current.json; run `pmgs doctor` "
    "and `pmgs setup SOURCE` again.",
    "UNSUPPORTED_SCHEMA_VERSION": "Rebuild the database with this version of pmgs.",
    "DATABASE_INVALID": "The file is not a pmgs database; check --db or rerun setup.",
    "DATABASE_ERROR": "Run `pmgs doctor`; rerun `pmgs setup SOURCE` if it fails.",
    "RELEASE_NOT_FOUND": "Use --release current or the release id of `pmgs release`.",
    "DOCUMENT_NOT_FOUND": "Find document ids with `pmgs search TEXT --content-type document`.",
    "DOCUMENT_SELECTOR_NOT_FOUND": "The page/section/locator does not exist in this document.",
    "MULTIPLE_ACTIVE_REVISIONS": "Pass --ipc-version to choose one revision.",
    "RESPONSE_TOO_LARGE": "Use a smaller limit.",
    "INVALID_PATH": "Give --path as one line of text (at most 1024 characters).",
    "INVALID_CATEGORY": "Give --category as one line of text (at most 100 characters).",
    "INVALID_CONTENT": "Give non-empty UTF-8 text without control characters.",
    "INVALID_PAGE": "Pages start at 1.",
    "ITEM_TOO_LARGE": "Split the text: one note holds at most 1,000,000 characters.",
    "TOO_MANY_ITEMS": "Remove notes you no longer need (`pmgs notes rm`).",
    "ITEM_NOT_FOUND": "Find item ids with `pmgs notes show DOCUMENT` or `pmgs notes search`.",
    "COLLECTION_BUSY": "Another process is writing to the collection; try again.",
    "COLLECTION_ERROR": "Check --collection; a collection written by a newer pmgs needs "
    "that version.",
    "SETUP_LOCKED": "Another setup is running on this data directory; wait for it.",
    "SOURCE_NOT_FOUND": "Give the path of the PMGS release directory or its ZIP.",
    "SOURCE_INVALID": "Give the unmodified JPO PMGS package (directory JPPMnnnnnnn or ZIP).",
    "INSUFFICIENT_SPACE": "Free disk space (setup needs 3 × source size + 1 GiB) or use "
    "another --data-dir.",
    "OUTPUT_WRITE_FAILED": "The disk (or a size limit) is full or failing: free space or use "
    "another --data-dir, then run setup again.",
    "BUILD_FAILED": "Run `pmgs build SOURCE OUT.sqlite --json` to see every build issue.",
    "QUARANTINE_REFUSED": "Run setup without --strict, or remove that release and set up again.",
    "SOURCE_CHANGED": "Do not modify the package while setup runs; run setup again.",
    "VALIDATION_FAILED": "The built database failed its checks; report this as a bug.",
    "SELF_CHECK_FAILED": "The built database did not answer; report this as a bug.",
    "PROMOTE_FAILED": "Check permissions of the data directory.",
    "POINTER_FAILED": "Check permissions of the data directory's state/ folder.",
    "INTERNAL_ERROR": "This is a bug; rerun with --debug and report the traceback.",
}


def exit_code_for(code: str) -> int:
    """The documented exit code of an error code (docs/cli.md)."""
    if code in _DATABASE_CODES:  # before INVALID_*: INVALID_POINTER is a database problem
        return EXIT_DATABASE
    if code.startswith("INVALID_") or ERROR_CATEGORIES.get(code) == "input":  # type: ignore[call-overload]
        return EXIT_USAGE
    if code in _NOT_FOUND_CODES:
        return EXIT_NOT_FOUND
    if code == "INTERNAL_ERROR":
        return EXIT_INTERNAL
    return EXIT_SETUP


def hint_for(code: str, message: str = "", details: Mapping[str, Any] | None = None) -> str:
    """A one-line next step for an error: specific when the message or details say more
    than the code (which values are accepted, which form a version takes)."""
    if code == "INVALID_VERSION":
        if "only to IPC" in message:
            return "Only IPC codes have versions: leave out --ipc-version for FI and F-term."
        return "Write the IPC version as YYYY.MM, e.g. --ipc-version 2006.01."
    if code == "INVALID_DOCUMENT_SELECTOR" and "section" in message:
        return (
            "Sections are numbered from 1 (--section 1); a heading or locator text is "
            "selected with --locator TEXT."
        )
    issues = (details or {}).get("issues")
    if code == "SOURCE_INVALID" and isinstance(issues, list) and issues:
        reasons = [_SOURCE_REASONS.get(str(issue), "see the message above") for issue in issues]
        return "; ".join(reasons) + f" ({', '.join(map(str, issues))})."
    accepted = (details or {}).get("accepted")
    if isinstance(accepted, list) and accepted:
        return "Accepted values: " + ", ".join(str(value) for value in accepted) + "."
    return _HINTS.get(code, "See `pmgs COMMAND --help` and docs/cli.md.")


_SOURCE_REASONS: Final[Mapping[str, str]] = {
    "RELEASE_ID_INVALID": "the release folder is not named like a release (JPPM and digits), "
    "or the files sit at the top without it: name it with --release JPPMnnnnnnn",
    "SOURCE_NOT_DIRECTORY": "the path is neither a directory nor a ZIP file",
    "SOURCE_SYMLINK": "the folder holds a symbolic link, which is never followed",
    "SOURCE_NOT_REGULAR_FILE": "the folder holds a special file (FIFO, socket or device)",
    "SOURCE_UNREADABLE": "a file of the folder cannot be read (permissions or I/O)",
    "REFERENCE_DATE_MISSING": "no classification CSV named …_YYYYMMDD.csv was found: the "
    "folder does not hold the package's FI, F-term and IPC files",
    "REFERENCE_DATE_AMBIGUOUS": "the classification CSV names carry different dates: files "
    "of two releases are mixed",
    "REFERENCE_DATE_INVALID": "a classification CSV name carries a date that does not exist",
    "COPYRGHT_MISSING": "the package's COPYRGHT file is missing",
    "COPYRGHT_MULTIPLE": "the package holds more than one COPYRGHT file",
    "COPYRGHT_INVALID": "the COPYRGHT file is not one line of UTF-8 text",
    "ZIP_INVALID": "the file is not a readable ZIP archive (damaged or incomplete download?)",
    "ZIP_MEMBER_UNSAFE": "the ZIP holds a member name that could leave the package, or a link",
    "ZIP_TOO_LARGE": "the ZIP's members exceed the size, count or compression-ratio bounds",
    "ZIP_LAYOUT_INVALID": "the ZIP holds two members whose names differ only in letter case "
    "or Unicode form",
    "RELEASE_FOLDER_NOT_FOUND": "no PMGS release was found in it, at the top or up to three "
    "folders down (the message lists what is there): give the JPPM… release folder or the "
    "ZIP as downloaded",
    "RELEASE_FOLDER_AMBIGUOUS": "it holds two PMGS releases at the same depth: give one "
    "release folder",
    "SOURCE_ARCHIVE_UNSUPPORTED": "it is (or holds) a tar, 7z, rar or other archive that is "
    "not a ZIP: run the command in the message to unpack it, then setup on the folder",
    "SOURCE_ARCHIVE_NESTED": "a ZIP in it holds another archive: unpack the outer one as the "
    "message says, then run setup again",
}
"""Why ``setup``/``build`` refused a source, by the build's issue code (``details.issues``)."""

_CLI_WORDS: Final = (("as locator=", "with --locator"), ("locator=", "--locator"))
"""Python argument names in store messages, as the CLI spells them."""


def cli_message(message: str) -> str:
    """A store message in the CLI's words (``locator=`` is ``--locator`` here)."""
    for python, cli in _CLI_WORDS:
        message = message.replace(python, cli)
    return message


class CliFailure(Exception):
    """An error the CLI reports with a stable code (raised by command bodies)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        details: Mapping[str, Any] | None = None,
        exit_code: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = dict(details or {})
        self.exit_code = exit_code if exit_code is not None else exit_code_for(code)
        self.hint = hint


def emit_json(data: object) -> None:
    """Print one JSON document on stdout (UTF-8, not ASCII-escaped: Japanese stays readable)."""
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _report_failure(failure: CliFailure, as_json: bool) -> NoReturn:
    error: dict[str, Any] = {"code": failure.code, "message": failure.message}
    if failure.details:
        error["details"] = failure.details
    hint = failure.hint or hint_for(failure.code, failure.message, failure.details)
    if as_json:
        emit_json({"record_type": "error", "error": error, "hint": hint})
    click.echo(f"error {failure.code}: {failure.message}", err=True)
    click.echo(f"hint: {hint}", err=True)
    sys.exit(failure.exit_code)


F = TypeVar("F", bound=Callable[..., Any])


def handle_errors(func: F) -> F:
    """Turn the store's, setup's and unexpected errors into a code, a hint and an exit code.

    No traceback unless ``--debug``: error messages of pmgs are written to be safe to show
    (no paths, no SQL), raw exception text is not.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        as_json = bool(kwargs.get("as_json", False))
        debug = bool(kwargs.get("debug", False))
        try:
            return func(*args, **kwargs)
        except CliFailure as failure:
            if debug:
                raise
            _report_failure(failure, as_json)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except BrokenPipeError:
            quiet_broken_pipe()
        except Exception as exc:
            if debug:
                raise
            code = getattr(exc, "code", None)
            message = getattr(exc, "message", None)
            if isinstance(code, str) and code.isupper() and isinstance(message, str):
                details = getattr(exc, "details", None)
                _report_failure(
                    CliFailure(
                        code,
                        cli_message(message),
                        details=details if isinstance(details, dict) else None,
                    ),
                    as_json,
                )
            _report_failure(
                CliFailure("INTERNAL_ERROR", f"unexpected {type(exc).__name__}"), as_json
            )

    return wrapper  # type: ignore[return-value]


class Options:
    """Where the database comes from; shared by every query command."""

    def __init__(self, db: Path | None, data_dir: Path | None) -> None:
        self.db = db
        self.data_dir = data_dir

    def open_store(self) -> Any:
        """Open the store in the contract's order (``--db``, ``--data-dir``, env, default)."""
        from pmgs_core import PMGSStore

        return PMGSStore.open(self.db, data_dir=self.data_dir)


@dataclass(frozen=True)
class Query(Options):
    """The shared options of a query command, handed to it as one ``q`` argument.

    Every query command opens the store the same way and prints the same way (JSON record or
    Rich view, exit code from the answer); that lives here, once.
    """

    db: Path | None
    data_dir: Path | None
    as_json: bool = False
    debug: bool = False

    def finish(
        self, record: Any, draw: str, *, exit_code: int | None = None, **extra: Any
    ) -> NoReturn:
        """Print ``record`` (``--json``: as is; else with ``render.<draw>``) and exit.

        Exit ``exit_code`` when given; else 1 for the negative answers of a lookup (the
        record is still printed), 0 otherwise.
        """
        if self.as_json:
            emit_json(record)
        else:
            from pmgs_cli import render

            getattr(render, draw)(record, **extra)
        if exit_code is None:
            status = record.get("match_status") if isinstance(record, dict) else None
            exit_code = EXIT_NEGATIVE if status in NEGATIVE_MATCH_STATUSES else EXIT_OK
        sys.exit(exit_code)


NEGATIVE_MATCH_STATUSES: Final = frozenset(
    {"not_found", "version_not_found", "not_valid_at_release"}
)
"""Match statuses that are answers (the record is printed) but exit with code 1."""


def query_options(func: F) -> F:
    """``--db``, ``--data-dir``, ``--json``, ``--debug`` given to the command as ``q``
    (a :class:`Query`), and errors handled."""

    @functools.wraps(func)
    def inject(
        *args: Any, db: Path | None, data_dir: Path | None, as_json: bool, debug: bool, **kw: Any
    ) -> Any:
        return func(*args, q=Query(db, data_dir, as_json, debug), **kw)

    return cast(
        F,
        file_options(
            inject,
            ("--db", "An explicit database file (first in the search order)."),
            data_dir_help="Managed data directory (uses its state/current.json).",
            json_help="Print the pmgs-core record as JSON on stdout.",
        ),
    )


def file_options(
    inject: Callable[..., Any], file: tuple[str, str], *, data_dir_help: str, json_help: str
) -> Callable[..., Any]:
    """A file option (``--db``, ``--collection``: name and help), ``--data-dir``, ``--json``
    and ``--debug`` on ``inject``, which receives them, with errors handled."""
    wrapped = handle_errors(inject)
    wrapped = click.option("--debug", is_flag=True, help="Show tracebacks of unexpected errors.")(
        wrapped
    )
    wrapped = click.option("--json", "as_json", is_flag=True, help=json_help)(wrapped)
    wrapped = click.option(
        "--data-dir",
        type=click.Path(path_type=Path, file_okay=False),
        default=None,
        help=data_dir_help,
    )(wrapped)
    name, help_text = file
    return click.option(
        name, type=click.Path(path_type=Path, dir_okay=False), default=None, help=help_text
    )(wrapped)


def language_option(func: F) -> F:
    """``--language ja|en`` (default ja)."""
    return click.option(
        "--language",
        type=click.Choice(["ja", "en"]),
        default="ja",
        show_default=True,
        help="Language of the texts to show.",
    )(func)


def paging_options(
    prefix: str = "", limit: int = 50, help_text: str | None = None
) -> Callable[[F], F]:
    """``--<prefix>limit`` (default ``limit``) and ``--<prefix>offset`` (default 0).

    Plain ints, range-checked by pmgs-core like every other bound, so that a value out of
    range is INVALID_LIMIT / INVALID_OFFSET in ``--json`` rather than a click usage message.
    """

    def add(func: F) -> F:
        func = click.option(f"--{prefix}offset", type=int, default=0, show_default=True)(func)
        return click.option(
            f"--{prefix}limit", type=int, default=limit, show_default=True, help=help_text
        )(func)

    return add


def scheme_option(help_text: str) -> Callable[[F], F]:
    """``--scheme fi|fterm|ipc`` (default: none), with what the scheme means to the command."""
    return click.option(
        "--scheme", type=click.Choice(["fi", "fterm", "ipc"]), default=None, help=help_text
    )
