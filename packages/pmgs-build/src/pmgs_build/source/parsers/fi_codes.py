"""``FI/FI``: the FI code table, the structure of record for FI.

Columns: 0 code (19-character fixed width), 1 structural sequence, 2 marker, 3 status,
4 level. The hierarchy is not spelled out in the file; it follows from level order (the parent
of a row is the nearest earlier row of the same file with a smaller level), which is why the
files are read in order and never in parallel.
"""

from __future__ import annotations

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, CsvRecords, FileResult, LevelStack

__all__ = ["parse_fi_codes"]

_COLUMNS = 5


def parse_fi_codes(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Define one canonical FI concept and revision per row, with its parent relation."""
    records = CsvRecords(ctx, source)
    stack = LevelStack()
    for locator, cells, code in records.coded(_COLUMNS, IssueCode.FI_COLUMN_COUNT, "fi"):
        level = ctx.integer(cells[4], IssueCode.LEVEL_INVALID, "level", source, locator)
        if code is None or level is None:
            continue
        concept = ctx.registry.define(
            "fi", "", code.canonical, code.kind, source_file_id=source.id, locator=locator
        )
        if concept is None:
            ctx.log.error(
                IssueCode.DUPLICATE_CODE,
                f"FI code {code.canonical} is defined twice",
                source.path,
                locator,
            )
            continue
        sequence = ctx.next_in("fi")
        revision = ctx.registry.add_revision(
            concept, "", source.id, locator, level=level, sequence=sequence
        )
        for name, cell in (("marker", cells[2]), ("status", cells[3])):
            value = cell.strip()
            if value:
                ctx.add_property(revision, name, value, source, locator)
        parent = stack.push(level, concept)
        if parent is not None:
            ctx.add_relation("parent", concept, parent, sequence, source=source, locator=locator)
        elif level > 1:
            ctx.log.warning(
                IssueCode.HIERARCHY_PARENT_MISSING,
                f"FI code {code.canonical} (level {level}) has no earlier row of a smaller level",
                source.path,
                locator,
            )
    return records.result()
