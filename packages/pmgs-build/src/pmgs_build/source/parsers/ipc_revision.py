"""``IPC_KAISEI``: the IPC revision tables, one ``ipc_revision`` document per file.

Columns: old IPC, its version, new IPC, its version (header ``旧IPC, 分類の発効日, 新IPC,
分類の発効日``, or ``Old IPC, Effective, New IPC, Effective``, or any wording: columns are
positional); codes are printed ``G06F 3/048``, versions bare (``2006.01``). A table of two
columns writes each version inside its code cell (``G06F 3/048 (2006.01)``). Each row is an
``amended_to`` relation from one IPC 8U revision to another, so both ends must be revisions
the ``IPC/IPC8U_TEXT`` files defined: an edge to a version nobody defined would be a version
lookups can never reach, and is an error rather than a reference-only guess.

Each row is also a segment of ``ipc_revision:{file stem}`` (heading = old code, body
``G06F3/048 (2006.01) → G06F3/048 (2014.01)``), and the document names the old and the new
concept of every row as its ``subject``s, so that looking up either code finds the table.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, DocumentState, FileResult
from pmgs_build.source.parsers.html_table import TableLayout, TableRow, read_table_document
from pmgs_core import InvalidCodeError, parse_code
from pmgs_core.building import parse_ipc_version

__all__ = ["IPC_REVISION_HEADER", "parse_ipc_revision"]

IPC_REVISION_HEADER: Final = ("旧IPC", "分類の発効日", "新IPC", "分類の発効日")
"""The header row of the package's ``IPC_KAISEI`` tables."""

_KNOWN_HEADERS: Final = (
    IPC_REVISION_HEADER,
    ("旧IPC", "発効日", "新IPC", "発効日"),
    ("旧分類", "分類の発効日", "新分類", "分類の発効日"),
    ("Old IPC", "Effective", "New IPC", "Effective"),
    ("Old IPC", "Version", "New IPC", "Version"),
    ("Old IPC", "Effective date", "New IPC", "Effective date"),
    ("旧IPC", "新IPC"),
    ("Old IPC", "New IPC"),
)
"""Wordings other writers use; any other header is read by position with a warning."""


def _is_ipc(cell: str) -> bool:
    try:
        parse_code("ipc", cell)
    except InvalidCodeError:
        return False
    return True


_LAYOUT: Final = TableLayout(_KNOWN_HEADERS, 4, 2, _is_ipc)

_EDITION: Final = "8U"
_TEXT_TYPE: Final = "amended_to"
_RELATION: Final = "amended_to"
_COUNTER: Final = "ipc_revision_amended_to"
_DOCUMENT: Final = ("ipc_revision:{stem}", "ipc_revision", "ja", "IPC改正対照表 {stem}")


class _Endpoint(NamedTuple):
    code: str
    version: str
    concept: int
    revision: int


def _endpoint(
    ctx: BuildContext,
    source: SourceFile,
    row: TableRow,
    column: int,
    which: str,
) -> _Endpoint | None:
    """The IPC 8U revision a (code, version) cell pair names, or None after recording why.

    In a two-column table the pair is one cell, the version written into the code."""
    locator = row.locator
    paired = len(row.cells) == 4
    cell = row.cells[column if paired else column // 2]
    code = ctx.code("ipc", cell, source, locator)
    try:
        version = parse_ipc_version(row.cells[column + 1]) if paired else None
    except InvalidCodeError as error:
        ctx.log.error(IssueCode.IPC_VERSION_INVALID, str(error), source.path, locator)
        return None
    if code is None:
        return None
    if version is None:
        if code.version is None:
            ctx.log.error(
                IssueCode.IPC_VERSION_INVALID,
                f"{which} code cell {cell!r} names no version",
                source.path,
                locator,
            )
            return None
        version = code.version
    if code.version is not None and code.version != version:
        ctx.log.error(
            IssueCode.IPC_VERSION_INVALID,
            f"{which} code cell names version {code.version}, its version cell {version}",
            source.path,
            locator,
        )
        return None
    canonical = code.canonical
    revision = ctx.state.ipc_revisions.get((_EDITION, canonical, version))
    concept = ctx.registry.defined("ipc", _EDITION, canonical)
    if revision is None or concept is None:
        ctx.log.error(
            IssueCode.IPC_REVISION_ENDPOINT_UNRESOLVED,
            f"the {which} end {canonical} ({version}) is not an IPC {_EDITION} revision of "
            "the package",
            source.path,
            locator,
        )
        return None
    return _Endpoint(canonical, version, concept, revision)


def _read_row(
    ctx: BuildContext, source: SourceFile, document: DocumentState, row: TableRow
) -> None:
    """One data row: its ``amended_to`` edge, its subjects and its segment."""
    if len(row.cells) not in (2, 4):
        ctx.log.error(
            IssueCode.HTML_TABLE_INVALID,
            f"{len(row.cells)} cells where a revision table has 4 (or 2 with versions)",
            source.path,
            row.locator,
        )
        return
    old = _endpoint(ctx, source, row, 0, "old")
    new = _endpoint(ctx, source, row, 2, "new")
    if old is None or new is None:
        return
    locator = row.locator
    ctx.add_relation(
        _RELATION,
        old.concept,
        new.concept,
        ctx.next_in(_COUNTER),
        source=source,
        locator=locator,
        from_revision=old.revision,
        to_revision=new.revision,
    )
    ctx.add_link(document, old.concept, "subject", source, locator)
    ctx.add_link(document, new.concept, "subject", source, locator)
    ctx.add_segment(
        document,
        old.code,
        _TEXT_TYPE,
        f"{old.code} ({old.version}) → {new.code} ({new.version})",
        source=source,
        locator=locator,
    )


def parse_ipc_revision(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Read one ``IPC_KAISEI/*.html``: a segment and an ``amended_to`` edge per data row."""
    return read_table_document(
        ctx,
        source,
        _LAYOUT,
        _DOCUMENT,
        lambda document, row: _read_row(ctx, source, document, row),
    )
