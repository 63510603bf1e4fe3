"""``FI/FI_TEXT`` and ``FI/FI_TEXT_E``: the official FI titles, Japanese and English.

Columns: 0 code, 1 text line sequence, 2 text type, 3-5 flags *(inferred, not stored)*,
6 text. Texts only describe codes of ``FI/FI``: a text for any other code means the two
tables disagree, which is an error rather than a new code.
"""

from __future__ import annotations

from collections.abc import Callable

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, CsvRecords, FileResult

__all__ = ["fi_text_parser"]

_COLUMNS = 7


def fi_text_parser(language: str) -> Callable[[BuildContext, SourceFile], FileResult]:
    """The parser of the FI text files of one language."""

    def parse(ctx: BuildContext, source: SourceFile) -> FileResult:
        records = CsvRecords(ctx, source)
        for locator, cells, code in records.coded(_COLUMNS, IssueCode.FI_TEXT_COLUMN_COUNT, "fi"):
            line = ctx.integer(cells[1], IssueCode.SEQUENCE_INVALID, "text line", source, locator)
            if code is None or line is None:
                continue
            concept = ctx.registry.defined("fi", "", code.canonical)
            revision = None if concept is None else ctx.registry.base_revision(concept)
            if revision is None:
                ctx.log.error(
                    IssueCode.FI_TEXT_UNKNOWN_CODE,
                    f"text for FI code {code.canonical}, which FI/FI does not define",
                    source.path,
                    locator,
                )
                continue
            ctx.add_text(
                revision, language, cells[2].strip(), line, cells[6], source=source, locator=locator
            )
        return records.result()

    return parse
