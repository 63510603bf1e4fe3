"""``FI/FI_THEME``: which F-term themes cover an FI code.

Columns: 0 FI code, 1 sequence, 2 theme group (``4C``), 3 theme number (``083``), 4 flag
*(inferred, not stored)*. Each row is a ``theme`` relation FI concept → theme concept,
ordered by the sequence column; codes no code table defines become reference-only.
"""

from __future__ import annotations

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, CsvRecords, FileResult
from pmgs_core import InvalidCodeError, fterm_theme_code

__all__ = ["parse_fi_theme"]

_COLUMNS = 5


def parse_fi_theme(ctx: BuildContext, source: SourceFile) -> FileResult:
    """One ``theme`` relation per row."""
    records = CsvRecords(ctx, source)
    for locator, cells, code in records.coded(_COLUMNS, IssueCode.FI_THEME_COLUMN_COUNT, "fi"):
        sequence = ctx.integer(cells[1], IssueCode.SEQUENCE_INVALID, "sequence", source, locator)
        try:
            theme = fterm_theme_code(cells[2], cells[3])
        except InvalidCodeError as error:
            ctx.log.error(IssueCode.CODE_INVALID, str(error), source.path, locator)
            continue
        if code is None or sequence is None:
            continue
        registry = ctx.registry
        fi_concept = registry.reference(
            "fi", "", code.canonical, code.kind, source_file_id=source.id, locator=locator
        )
        theme_concept = registry.reference(
            "fterm", "", theme, "theme", source_file_id=source.id, locator=locator
        )
        ctx.add_relation(
            "theme", fi_concept, theme_concept, sequence, source=source, locator=locator
        )
    return records.result()
