"""``FI/FI_KAISEI_LINK``: FI code → FI revision document.

Columns: 0 FI code, 1.. description. Two real rows carry an unquoted comma in the
description, so every cell after the first is re-joined with commas.

A row points at the revision document of its code's subclass (``fi_revision:{subclass}``,
read earlier from ``FI/FI_KAISEI_DOC``). It becomes a ``subject`` link of that document to the
code's concept, unless the XML already linked that concept: the store lists every link row
of a document, so a second row would show the code twice; the row's own provenance is kept
by the description property instead. The description goes on the code's version-''
revision as property ``fi_revision_note``; a code no code table defines is reference-only
and has no revision yet (it is made when the build finishes), so its description is not
stored.

Packages without revision XML (``FI/FI_KAISEI_DOC`` absent) cannot resolve any row; they keep
the rows validated and counted only, as before the documents were read, rather than failing.
"""

from __future__ import annotations

from typing import Final

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, CsvRecords, FileResult

__all__ = ["parse_fi_revision_link"]

_MIN_COLUMNS: Final = 2
_NO_SUBCLASS: Final = frozenset({"section", "class"})
NOTE_PROPERTY: Final = "fi_revision_note"


def split_link_row(cells: list[str]) -> tuple[str, str]:
    """(code cell, description) with the unquoted-comma rule applied."""
    return cells[0], ",".join(cells[1:])


def parse_fi_revision_link(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Link each row's code to its subclass's revision document and keep the description."""
    records = CsvRecords(ctx, source)
    documents_read = bool(ctx.state.fi_revision_subclasses)
    for locator, cells in records:
        if not ctx.min_columns(
            cells,
            _MIN_COLUMNS,
            IssueCode.FI_KAISEI_LINK_COLUMN_COUNT,
            source,
            locator,
            noun="column(s)",
        ):
            continue
        code_cell, description = split_link_row(cells)
        code = ctx.code("fi", code_cell, source, locator)
        if code is None:
            continue
        concept_id = ctx.registry.reference(
            "fi", "", code.canonical, code.kind, source_file_id=source.id, locator=locator
        )
        if not documents_read:
            continue
        subclass = None if code.kind in _NO_SUBCLASS else code.canonical[:4]
        document = ctx.state.documents.get(f"fi_revision:{subclass}") if subclass else None
        if document is None:
            ctx.log.error(
                IssueCode.FI_REVISION_LINK_UNRESOLVED,
                f"{code.canonical}: no FI/FI_KAISEI_DOC document for subclass "
                f"{subclass or '(none: the code is above subclass level)'}",
                source.path,
                locator,
            )
            continue
        ctx.add_link(document, concept_id, "subject", source, locator)
        revision_id = ctx.registry.base_revision(concept_id)
        note = description.strip()
        if revision_id is not None and note:
            ctx.add_property(revision_id, NOTE_PROPERTY, note, source, locator)
    return records.result()
