"""``FI/FI_KAISEI_LINK``: FI code → FI revision document.

Columns: 0 FI code, 1.. description. Two real rows carry an unquoted comma in the
description, so every cell after the first is re-joined with commas.

The revision documents themselves (``FI/FI_KAISEI_DOC``, XML) are read by part 2 of the
builder, and the description is only meaningful next to them. Until then this adapter
validates every row (the code must parse; an unknown code becomes a reference-only FI
concept, as for any code a revision document names) and counts it in
``source_file.record_count``, but stores no row of its own: no property and no relation,
because the schema has no relation kind for "concept → document" other than a
``document_link``, which needs the document.
"""

from __future__ import annotations

from pmgs_build.adapters.base import BuildContext, CsvRecords, FileResult
from pmgs_build.issues import IssueCode
from pmgs_build.model import SourceFile

__all__ = ["parse_fi_revision_link"]

_MIN_COLUMNS = 2


def split_link_row(cells: list[str]) -> tuple[str, str]:
    """(code cell, description) with the unquoted-comma rule applied."""
    return cells[0], ",".join(cells[1:])


def parse_fi_revision_link(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Validate and count the rows; reserve the codes they name."""
    records = CsvRecords(ctx, source)
    for locator, cells in records:
        if len(cells) < _MIN_COLUMNS:
            ctx.log.error(
                IssueCode.FI_KAISEI_LINK_COLUMN_COUNT,
                f"{len(cells)} column(s) where FI/FI_KAISEI_LINK has at least {_MIN_COLUMNS}",
                source.path,
                locator,
            )
            continue
        code_cell, _description = split_link_row(cells)
        code = ctx.code("fi", code_cell, source, locator)
        if code is not None:
            ctx.registry.reference(
                "fi", "", code.canonical, code.kind, source_file_id=source.id, locator=locator
            )
    return FileResult(records.records)
