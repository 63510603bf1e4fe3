"""``FI/FI_HB`` and ``FI/FI_HB_E``: the FI handbook, kept as one document per code.

Columns: 0 code, 1 sequence, 2 text type, 3 flag, 4 text. Each row is one segment of the
document ``fi_handbook:{lang}:{code}`` in file order (the source's sequence column is not a
dense 1-based order, the file order is). A handbook for a code ``FI/FI`` does not define
links to a reference-only concept.
"""

from __future__ import annotations

from collections.abc import Callable

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, CsvRecords, FileResult
from pmgs_build.source.parsers.documents import code_document, name_concept

__all__ = ["fi_handbook_parser"]

_COLUMNS = 5
_TITLES = {"ja": "FIハンドブック {code}", "en": "FI handbook {code}"}


def fi_handbook_parser(language: str) -> Callable[[BuildContext, SourceFile], FileResult]:
    """The parser of the FI handbook files of one language."""

    def parse(ctx: BuildContext, source: SourceFile) -> FileResult:
        records = CsvRecords(ctx, source)
        for locator, cells, code in records.coded(_COLUMNS, IssueCode.FI_HB_COLUMN_COUNT, "fi"):
            if code is None:
                continue
            canonical = code.canonical
            document = code_document(
                ctx, "fi_handbook", language, canonical, _TITLES, source, locator
            )
            name_concept(ctx, document, "subject", ("fi", canonical, code.kind), source, locator)
            ctx.add_segment(
                document, canonical, cells[2].strip(), cells[4], source=source, locator=locator
            )
        return records.result()

    return parse
