"""``IPC_KAISEI``: the IPC revision tables, one ``ipc_revision`` document per file.

Columns: old IPC, its version, new IPC, its version (header ``旧IPC, 分類の発効日, 新IPC,
分類の発効日``); codes are printed ``G06F 3/048``, versions bare (``2006.01``). Each row is an
``amended_to`` relation from one IPC 8U revision to another, so both ends must be revisions
the ``IPC/IPC8U_TEXT`` files defined: an edge to a version nobody defined would be a version
lookups can never reach, and is an error rather than a reference-only guess.

Each row is also a segment of ``ipc_revision:{file stem}`` (heading = old code, body
``G06F3/048 (2006.01) → G06F3/048 (2014.01)``), and the document names the old and the new
concept of every row as its ``subject``s, so that looking up either code finds the table.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Final, NamedTuple

from pmgs_build.adapters.base import BuildContext, FileResult
from pmgs_build.adapters.html_table import TableRow, read_html_table
from pmgs_build.issues import IssueCode
from pmgs_build.model import SourceFile
from pmgs_core import InvalidCodeError, parse_ipc_version

__all__ = ["IPC_REVISION_HEADER", "parse_ipc_revision"]

IPC_REVISION_HEADER: Final = ("旧IPC", "分類の発効日", "新IPC", "分類の発効日")
"""The header row every ``IPC_KAISEI`` table has."""

_EDITION: Final = "8U"
_TEXT_TYPE: Final = "amended_to"
_RELATION: Final = "amended_to"
_COUNTER: Final = "ipc_revision_amended_to"


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
    """The IPC 8U revision a (code, version) cell pair names, or None after recording why."""
    locator = row.locator
    code = ctx.code("ipc", row.cells[column], source, locator)
    try:
        version = parse_ipc_version(row.cells[column + 1])
    except InvalidCodeError as error:
        ctx.log.error(IssueCode.IPC_VERSION_INVALID, str(error), source.path, locator)
        return None
    if code is None:
        return None
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


def parse_ipc_revision(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Read one ``IPC_KAISEI/*.html``: a segment and an ``amended_to`` edge per data row."""
    table = read_html_table(ctx, source, IPC_REVISION_HEADER)
    if table is None:
        return FileResult()
    stem = PurePosixPath(source.path).stem
    document = ctx.document(
        f"ipc_revision:{stem}",
        "ipc_revision",
        "ja",
        f"IPC改正対照表 {stem}",
        source=source,
        locator="table-row:1",
    )
    for row in table.rows:
        old = _endpoint(ctx, source, row, 0, "old")
        new = _endpoint(ctx, source, row, 2, "new")
        if old is None or new is None:
            continue
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
    return FileResult(table.records)
