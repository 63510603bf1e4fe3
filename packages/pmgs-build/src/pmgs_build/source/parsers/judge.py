"""``JUDGE``: the judgement categories, kept as the single document ``judge``.

Columns: 0 key, 1 label; one segment per row (heading = key, body = label). The package has
one such file; a second would need a second document under the same unique key, so it is an
error instead of a silent merge.
"""

from __future__ import annotations

from typing import Final

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, CsvRecords, FileResult

__all__ = ["parse_judge"]

_COLUMNS: Final = 2
_KEY: Final = "judge"


def parse_judge(ctx: BuildContext, source: SourceFile) -> FileResult:
    """One segment of the ``judge`` document per row."""
    if _KEY in ctx.state.documents:
        ctx.log.error(
            IssueCode.JUDGE_MULTIPLE_FILES,
            "a second JUDGE file; the package has exactly one",
            source.path,
        )
        return FileResult()
    records = CsvRecords(ctx, source)
    for locator, cells in records:
        if not ctx.columns(cells, _COLUMNS, IssueCode.JUDGE_COLUMN_COUNT, source, locator):
            continue
        document = ctx.document(_KEY, "judge", None, "JUDGE", source=source, locator=locator)
        ctx.add_segment(document, cells[0].strip(), None, cells[1], source=source, locator=locator)
    return FileResult(records.records)
