"""``FTERM/THEME`` and ``FTERM/THEME_E``: the F-term themes.

Columns: 0 theme code, 1 sequence, 2 theme group, 3 flag, 4 sort number, 5 FI coverage,
6 title, 7 remarks. Only rows whose first cell is a theme code (``^[0-9][A-Z][0-9]{3}$``) are
themes; bare group headers (``2B``) are skipped and counted, anything else is skipped with a
warning. All rows, headers included, must have the 8 columns. The Japanese file defines the
themes; the English one only adds English text, and its sequence is compared with the
Japanese one (a difference is a warning: 49 on the real release).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, CsvRecords, FileResult
from pmgs_build.source.parsers.english import japanese_row, mismatch

__all__ = ["parse_theme_en", "parse_theme_ja"]

_COLUMNS: Final = 8
_THEME_RE: Final = re.compile(r"[0-9][A-Z][0-9]{3}")
_GROUP_HEADER_RE: Final = re.compile(r"[0-9][A-Z]")
_PROPERTIES: Final = ((2, "theme_group"), (3, "flag"), (4, "sort_number"), (5, "fi_coverage"))


def _theme_cell(
    ctx: BuildContext, cells: list[str], source: SourceFile, locator: str, result: FileResult
) -> str | None:
    """The theme code of a row, or None for a row that is not a theme (counted as skipped).

    Every row, group headers included, must have the 8 columns: a header of another width
    means the file is not what the format page describes.
    """
    if not ctx.columns(cells, _COLUMNS, IssueCode.THEME_COLUMN_COUNT, source, locator):
        return None
    first = cells[0].strip()
    if not _THEME_RE.fullmatch(first):
        result.skipped += 1
        if not _GROUP_HEADER_RE.fullmatch(first):
            ctx.log.warning(
                IssueCode.THEME_ROW_SKIPPED,
                f"first cell {cells[0][:20]!r} is neither a theme code nor a group header",
                source.path,
                locator,
            )
        return None
    code = ctx.code("fterm", first, source, locator)
    return None if code is None else code.canonical


def _theme_rows(
    ctx: BuildContext, source: SourceFile, result: FileResult
) -> Iterator[tuple[str, list[str], str, int]]:
    """(locator, cells, theme code, sequence) of the theme rows of a file, ja or en alike;
    rows that are not themes or have no valid sequence are recorded and left out, and
    ``result`` gets the file's record count once every row was read."""
    records = CsvRecords(ctx, source)
    for locator, cells in records:
        theme = _theme_cell(ctx, cells, source, locator, result)
        if theme is None:
            continue
        sequence = ctx.integer(cells[1], IssueCode.SEQUENCE_INVALID, "sequence", source, locator)
        if sequence is None:
            continue
        yield locator, cells, theme, sequence
    result.records = records.records


def _add_title(
    ctx: BuildContext,
    revision: int,
    language: str,
    cells: list[str],
    source: SourceFile,
    locator: str,
) -> None:
    """The title of a theme row, and its remarks when there are any, in ``language``."""
    ctx.add_text(revision, language, "title", 1, cells[6], source=source, locator=locator)
    if cells[7].strip():
        ctx.add_text(revision, language, "remarks", 1, cells[7], source=source, locator=locator)


def parse_theme_ja(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Define one canonical theme concept per theme row."""
    result = FileResult()
    for locator, cells, theme, sequence in _theme_rows(ctx, source, result):
        concept = ctx.registry.define(
            "fterm", "", theme, "theme", source_file_id=source.id, locator=locator
        )
        if concept is None:
            ctx.log.error(
                IssueCode.DUPLICATE_CODE, f"theme {theme} is defined twice", source.path, locator
            )
            continue
        revision = ctx.registry.add_revision(concept, "", source.id, locator, sequence=sequence)
        ctx.state.theme_ja[theme] = (revision, sequence)
        _add_title(ctx, revision, "ja", cells, source, locator)
        for column, name in _PROPERTIES:
            value = cells[column].strip()
            if value:
                ctx.add_property(revision, name, value, source, locator)
    return result


def parse_theme_en(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Add English titles and remarks to the themes of the Japanese file."""
    result = FileResult()
    for locator, cells, theme, sequence in _theme_rows(ctx, source, result):
        subject = f"theme {theme}"
        known = japanese_row(ctx, ctx.state.theme_ja, "FTERM/THEME", theme, source, locator)
        if known is None:
            continue
        revision, ja_sequence = known
        sequences = ("sequence", sequence, ja_sequence)
        issue = IssueCode.THEME_TRANSLATION_SEQUENCE_MISMATCH
        mismatch(ctx, issue, subject, sequences, source, locator, kept=True)
        _add_title(ctx, revision, "en", cells, source, locator)
    return result
