"""``IPC/IPC{4,5,6,7,7E,8B,8U}_TEXT``: the IPC editions, each its own code table.

An IPC text file is both the code table and the texts: a code's first line defines the
concept and its revision, further lines add text lines. Column layouts:

* 4, 5, 6, 7, 7E: 0 code, 1 text line sequence, 2 text type, 3 level, 4 flag, 5 text.
* 8B: 0 code, 1 version, 2 line, 3 type, 4 level, 5-7 flags, 8 text.
* 8U: 0 code, 1 version, 2 line, 3 type, 4 level, 5-6 flags, 7 valid from, 8 valid to
  (``99991231`` = open), 9 flag, 10 text. Each (code, version) is its own revision.

The text line sequence orders the lines of a revision, so a missing, non-integer or
non-positive one is an error. Lines of one revision must agree on level and validity; an
8U or 8B code with more than one revision valid at the reference date is an error (checked
by :func:`check_ipc_validity` after loading), because a lookup would have to guess.

Editions 4 to 7 also hold indexing codes, written with ``:`` in place of ``/``
(``A61K 103:    00``). Each is a concept of its own (``A61K103:00``, never the group
``A61K103/00``), its revision marked by the property ``code_type`` = ``indexing_code``, its
parent found by level like every other row. IPC 8 has no such codes: a ``:`` code in 8B or
8U is quarantined (``CODE_INVALID``) rather than stored as a code the edition cannot have.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, CsvRecords, FileResult, LevelStack
from pmgs_core import InvalidCodeError
from pmgs_core.building import parse_ipc_version

__all__ = [
    "EDITIONS",
    "INDEXING_EDITIONS",
    "IpcLayout",
    "check_ipc_validity",
    "ipc_parser",
    "refuse_misplaced_indexing",
]

OPEN_END: Final = "99991231"
INDEXING_EDITIONS: Final = frozenset({"4", "5", "6", "7", "7E"})
"""The editions whose files may hold indexing codes (``A61K 103:00``)."""
INDEXING_PROPERTY: Final = ("code_type", "indexing_code")


@dataclass(frozen=True, slots=True)
class IpcLayout:
    """Where an edition keeps each value (0-based columns; None = not in this edition)."""

    edition: str
    columns: int
    line: int
    text_type: int
    level: int
    body: int
    flags: tuple[tuple[int, str], ...]
    language: str = "ja"
    version: int | None = None
    validity: tuple[int, int] | None = None
    """The (valid from, valid to) columns: an edition has both dates or neither."""


def _old(edition: str, language: str = "ja") -> IpcLayout:
    return IpcLayout(
        edition, 6, line=1, text_type=2, level=3, body=5, flags=((4, "flag"),), language=language
    )


def _versioned(
    edition: str,
    columns: int,
    *,
    last_flag: int,
    body: int,
    validity: tuple[int, int] | None = None,
) -> IpcLayout:
    """A versioned edition (8B, 8U): version, line, text type and level in columns 1-4, flags
    in 5, 6 and ``last_flag`` (each named after its column); 8U adds its validity dates."""
    return IpcLayout(
        edition,
        columns,
        version=1,
        line=2,
        text_type=3,
        level=4,
        flags=tuple((column, f"flag_{column}") for column in (5, 6, last_flag)),
        body=body,
        validity=validity,
    )


EDITIONS: Final[dict[str, IpcLayout]] = {
    "IPC/IPC4_TEXT": _old("4"),
    "IPC/IPC5_TEXT": _old("5"),
    "IPC/IPC6_TEXT": _old("6"),
    "IPC/IPC7_TEXT": _old("7"),
    "IPC/IPC7E_TEXT": _old("7E", "en"),
    "IPC/IPC8B_TEXT": _versioned("8B", 9, last_flag=7, body=8),
    "IPC/IPC8U_TEXT": _versioned("8U", 11, last_flag=9, body=10, validity=(7, 8)),
}


_ipc_version: Final = lru_cache(maxsize=1024)(parse_ipc_version)
"""The version of a cell: the same few cells recur on every row (errors are not cached)."""


@lru_cache(maxsize=1 << 14)
def _iso_date(text: str) -> str | None:
    """The ISO date of a stripped ``YYYYMMDD`` cell, else None (few dates, many rows)."""
    if len(text) == 8 and text.isascii() and text.isdigit():
        try:
            return dt.date(int(text[:4]), int(text[4:6]), int(text[6:])).isoformat()
        except ValueError:
            pass
    return None


def _date(
    ctx: BuildContext, cell: str, what: str, source: SourceFile, locator: str
) -> tuple[bool, str | None]:
    """(ok, ISO date or None for the open end) of a ``YYYYMMDD`` cell."""
    text = cell.strip()
    if what == "valid to" and text == OPEN_END:
        return True, None
    iso = _iso_date(text)
    if iso is not None:
        return True, iso
    ctx.log.error(
        IssueCode.IPC_VALIDITY_INVALID,
        f"{what} {cell!r} is not a YYYYMMDD date",
        source.path,
        locator,
    )
    return False, None


def refuse_misplaced_indexing(
    ctx: BuildContext, edition: str, canonical: str, source: SourceFile, locator: str
) -> bool:
    """Record ``CODE_INVALID`` for an indexing code named in an edition that has none.

    Returns True when the row must be left out: an IPC 8 row with ``:`` is a damaged or
    foreign cell, and storing it would create a code IPC 8 does not have.
    """
    if ":" not in canonical or edition in INDEXING_EDITIONS:
        return False
    ctx.log.error(
        IssueCode.CODE_INVALID,
        f"{canonical} is an indexing code (':'), which IPC {edition} does not have; "
        "indexing codes exist in editions 4 to 7 only",
        source.path,
        locator,
    )
    return True


def ipc_parser(layout: IpcLayout) -> Callable[[BuildContext, SourceFile], FileResult]:
    """The parser of the text files of one IPC edition."""
    edition = layout.edition

    def parse(ctx: BuildContext, source: SourceFile) -> FileResult:
        state = ctx.state
        if state.ipc_edition != edition:
            state.ipc_edition = edition
            state.ipc_seen = {}
        seen = state.ipc_seen
        registry = ctx.registry
        records = CsvRecords(ctx, source)
        stack = LevelStack()
        properties: set[tuple[int, str, str]] = set()
        for locator, cells in records:
            if not ctx.columns(cells, layout.columns, IssueCode.IPC_COLUMN_COUNT, source, locator):
                continue
            code = ctx.code("ipc", cells[0], source, locator)
            line = ctx.integer(
                cells[layout.line],
                IssueCode.IPC_TEXT_LINE_INVALID,
                "text line sequence",
                source,
                locator,
                minimum=1,
            )
            level = ctx.integer(
                cells[layout.level], IssueCode.LEVEL_INVALID, "level", source, locator
            )
            version = ""
            if layout.version is not None:
                try:
                    version = _ipc_version(cells[layout.version])
                except InvalidCodeError as error:
                    ctx.log.error(IssueCode.IPC_VERSION_INVALID, str(error), source.path, locator)
                    continue
            valid_from = valid_to = None
            if layout.validity is not None:
                from_column, to_column = layout.validity
                ok_from, valid_from = _date(ctx, cells[from_column], "valid from", source, locator)
                ok_to, valid_to = _date(ctx, cells[to_column], "valid to", source, locator)
                if not (ok_from and ok_to):
                    continue
                if valid_from is not None and valid_to is not None and valid_to < valid_from:
                    ctx.log.error(
                        IssueCode.IPC_VALIDITY_INVALID,
                        f"valid to {valid_to} is before valid from {valid_from}",
                        source.path,
                        locator,
                    )
                    continue
            if code is None or line is None or level is None:
                continue
            canonical = code.canonical
            if refuse_misplaced_indexing(ctx, edition, canonical, source, locator):
                continue
            key = (canonical, version)
            known = seen.get(key)
            if known is None:
                concept = registry.defined("ipc", edition, canonical)
                is_new = concept is None
                if concept is None:
                    concept = registry.define(
                        "ipc",
                        edition,
                        canonical,
                        code.kind,
                        source_file_id=source.id,
                        locator=locator,
                    )
                    assert concept is not None  # not defined a moment ago
                sequence = ctx.next_in(f"ipc:{edition}")
                revision = registry.add_revision(
                    concept,
                    version,
                    source.id,
                    locator,
                    level=level,
                    sequence=sequence,
                    valid_from=valid_from,
                    valid_to=valid_to,
                )
                seen[key] = (revision, level, valid_from, valid_to)
                if ":" in canonical:
                    ctx.add_property(revision, *INDEXING_PROPERTY, source, locator)
                if layout.version is not None:
                    state.ipc_revisions[(edition, canonical, version)] = revision
                if layout.version is not None:
                    state.ipc_validity.setdefault((edition, canonical), []).append(
                        (version, valid_from, valid_to, f"{source.path} {locator}")
                    )
                parent = stack.push(level, concept)
                if is_new:
                    if parent is not None:
                        ctx.add_relation(
                            "parent", concept, parent, sequence, source=source, locator=locator
                        )
                    elif level > 1:
                        ctx.log.warning(
                            IssueCode.HIERARCHY_PARENT_MISSING,
                            f"IPC {edition} code {canonical} (level {level}) has no earlier "
                            "row of a smaller level",
                            source.path,
                            locator,
                        )
            else:
                revision = known[0]
                if known[1:] != (level, valid_from, valid_to):
                    ctx.log.error(
                        IssueCode.IPC_REVISION_INCONSISTENT,
                        f"IPC {edition} {canonical} {version}: level/validity "
                        f"{(level, valid_from, valid_to)} differs from earlier lines {known[1:]}",
                        source.path,
                        locator,
                    )
                    continue
            ctx.add_text(
                revision,
                layout.language,
                cells[layout.text_type].strip(),
                line,
                cells[layout.body],
                source=source,
                locator=locator,
            )
            for column, name in layout.flags:
                value = cells[column].strip()
                if value and (revision, name, value) not in properties:
                    properties.add((revision, name, value))
                    ctx.add_property(revision, name, value, source, locator)
        return FileResult(records.records)

    return parse


def check_ipc_validity(ctx: BuildContext) -> None:
    """Every versioned IPC code has at most one revision valid at the reference date.

    Validity is inclusive at both ends, NULL = unbounded (the store's rule). 8B revisions have
    no validity, so an 8B code with two versions is two valid revisions and an error too.
    """
    reference = ctx.reference_date
    for (edition, code), revisions in ctx.state.ipc_validity.items():
        valid = [
            (version, where)
            for version, valid_from, valid_to, where in revisions
            if (valid_from is None or valid_from <= reference)
            and (valid_to is None or reference <= valid_to)
        ]
        if len(valid) > 1:
            first_where = valid[0][1]
            path, _, locator = first_where.rpartition(" ")
            ctx.log.error(
                IssueCode.IPC_MULTIPLE_VALID_REVISIONS,
                f"IPC {edition} {code} has {len(valid)} revisions valid at {reference}: "
                + ", ".join(version for version, _ in valid),
                path,
                locator,
            )
