"""``FTERM/FTERM_KAISETSU`` and ``_E``: the F-term explanations (解説), one document per theme.

Columns: 0 theme or F-term code (padded), 1 sequence, 2 text type, 3 text. Every row is a
segment of ``fterm_explanation:{lang}:{theme}`` in file order; the document's subject is the
theme and it mentions every viewpoint or term named in column 0. Codes here may be absent
from the F-term tables: they become reference-only concepts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, CsvRecords, FileResult
from pmgs_build.source.parsers.documents import code_document, name_concept
from pmgs_build.source.parsers.fterm import fterm_concept_code

__all__ = ["fterm_explanation_parser"]

_COLUMNS: Final = 4
_TITLES: Final = {"ja": "Fターム解説 {code}", "en": "F-term explanation {code}"}


def fterm_explanation_parser(language: str) -> Callable[[BuildContext, SourceFile], FileResult]:
    """The parser of the explanation files of one language."""

    def parse(ctx: BuildContext, source: SourceFile) -> FileResult:
        records = CsvRecords(ctx, source)
        rows = records.coded(_COLUMNS, IssueCode.FTERM_KAISETSU_COLUMN_COUNT, "fterm")
        for locator, cells, parsed in rows:
            if parsed is None:
                continue
            theme = str(parsed.theme)
            code, kind = fterm_concept_code(parsed)
            document = code_document(
                ctx, "fterm_explanation", language, theme, _TITLES, source, locator
            )
            name_concept(ctx, document, "subject", ("fterm", theme, "theme"), source, locator)
            if code != theme:
                name_concept(ctx, document, "mentions", ("fterm", code, kind), source, locator)
            ctx.add_segment(
                document, code, cells[2].strip(), cells[3], source=source, locator=locator
            )
        return records.result()

    return parse
