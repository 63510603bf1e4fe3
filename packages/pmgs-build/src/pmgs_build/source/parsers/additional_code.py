"""``FTERM/ADD_CODE`` and ``_E``: the additional-code tables, one document per file and language.

Columns: theme code, additional code, description (header ``テーマコード, 付加コード, 説明`` /
``Theme code, Additional code, Description``, or other wordings: columns are positional, and
a table of two columns has no description). Every data row is a segment of
``fterm_additional_code:{lang}:{file stem}`` (heading = theme, text type ``additional_code``,
body ``ZA01 description``), and the document names each theme it lists as a ``subject``. A
theme that ``FTERM/THEME`` does not define becomes a reference-only concept, as themes named
by explanations do.

An English description that is literally ``(Not Translated)`` stays in the body as it is, like
every other document segment: it is what the page says about that code, and a segment is
kept per row so that the ja and en documents stay row for row alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, DocumentState, FileResult
from pmgs_build.source.parsers.documents import name_concept
from pmgs_build.source.parsers.html_table import TableLayout, TableRow, read_table_document
from pmgs_core import InvalidCodeError, parse_code

__all__ = ["ADD_CODE_HEADERS", "additional_code_parser"]

ADD_CODE_HEADERS: Final = {
    "ja": ("テーマコード", "付加コード", "説明"),
    "en": ("Theme code", "Additional code", "Description"),
}
"""The header row of the additional-code tables, per language, as the package words it."""

_KNOWN_HEADERS: Final = (
    *ADD_CODE_HEADERS.values(),
    ("テーマコード", "付加コード", "内容"),
    ("テーマ", "コード", "説明"),
    ("テーマ", "付加コード", "説明"),
    ("Theme", "Code", "Description"),
    ("Theme", "Code"),
    ("Theme code", "Additional code"),
    ("テーマコード", "付加コード"),
)
"""Wordings other writers use; any other header is read by position with a warning."""

_TEXT_TYPE: Final = "additional_code"
_TITLES: Final = {"ja": "付加コード {stem}", "en": "Additional codes {stem}"}


def _theme(text: str) -> str | None:
    """The theme code of a first cell, or None when the cell is not exactly a theme."""
    try:
        parsed = parse_code("fterm", text)
    except InvalidCodeError:
        return None
    return parsed.canonical if parsed.kind == "theme" else None


def additional_code_parser(language: str) -> Callable[[BuildContext, SourceFile], FileResult]:
    """The parser of ``FTERM/ADD_CODE`` (ja) or ``FTERM/ADD_CODE_E`` (en)."""
    document = (
        f"fterm_additional_code:{language}:{{stem}}",
        "fterm_additional_code",
        language,
        _TITLES[language],
    )
    layout = TableLayout(_KNOWN_HEADERS, 3, 2, lambda cell: _theme(cell) is not None)

    def parse(ctx: BuildContext, source: SourceFile) -> FileResult:
        def read_row(document: DocumentState, row: TableRow) -> None:
            locator = row.locator
            theme_cell, code, description = (*row.cells, "")[:3]
            theme = _theme(theme_cell)
            if theme is None:
                shown = theme_cell if len(theme_cell) <= 40 else theme_cell[:40] + "…"
                ctx.log.error(
                    IssueCode.ADD_CODE_ROW_INVALID,
                    f"first cell {shown!r} is not a theme code",
                    source.path,
                    locator,
                )
                return
            name_concept(ctx, document, "subject", ("fterm", theme, "theme"), source, locator)
            body = " ".join(part for part in (code, description) if part)
            ctx.add_segment(document, theme, _TEXT_TYPE, body, source=source, locator=locator)

        return read_table_document(ctx, source, layout, document, read_row)

    return parse
