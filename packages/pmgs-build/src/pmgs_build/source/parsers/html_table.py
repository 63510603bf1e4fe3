"""The one table of a package HTML file (``IPC_KAISEI``, ``FTERM/ADD_CODE(_E)``), read strictly.

The pages are hand-made, so libxml2's recovering HTML parser reads them and what it repaired
is reported once per file (``HTML_RECOVERY_USED``). The bytes are decoded here, strictly in
the declared charset (libxml2's iconv would turn ``\\`` and ``~`` into ``¥`` and ``‾``), and
the table is read by shape, not wording (ADR 0009). ``table-row:N`` is the N-th ``<tr>`` of
the table, 1-based, the header row being 1.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Final

from lxml import etree  # type: ignore[import-untyped]  # lxml ships no stubs

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, DocumentState, FileResult, decode_cp932

__all__ = ["HtmlTable", "TableLayout", "TableRow", "read_html_table", "read_table_document"]

_CHARSET_RE: Final = re.compile(
    rb"""<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE
)
"""The first charset declaration, ``<meta charset=…>`` or ``<meta http-equiv … charset=…>``;
the declaration itself is ASCII in every encoding the package could use."""
_DEFAULT_CHARSET: Final = "utf-8"
_SHOWN: Final = 120
"""Characters of package text quoted in a message at most."""


@dataclass(frozen=True, slots=True)
class TableLayout:
    """What a data group's tables look like: the header wordings known (any language), the
    number of columns read, the fewest a row may have, and a test of a first cell's data."""

    headers: tuple[tuple[str, ...], ...]
    columns: int
    min_columns: int
    is_data: Callable[[str], bool]

    def known(self, cells: Iterable[str]) -> bool:
        """True when ``cells`` are one of the known headers, in any case and width."""
        folded = tuple(_fold(cell) for cell in cells)
        return any(folded == tuple(_fold(cell) for cell in header) for header in self.headers)


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@dataclass(frozen=True, slots=True)
class TableRow:
    """One data row: its ``table-row:N`` locator and its cells' text."""

    locator: str
    cells: tuple[str, ...]


@dataclass(slots=True)
class HtmlTable:
    """The data rows of a table, each of ``min_columns`` to ``columns`` cells.

    ``records`` counts every row that is neither the header nor a footer, including rows
    quarantined for their width (absent from ``rows``).
    """

    rows: list[TableRow] = field(default_factory=list)
    records: int = 0


def _shown(text: str) -> str:
    """Package text quoted in a message: short, and as a repr so that nothing is interpreted."""
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "…")


def _decode(ctx: BuildContext, source: SourceFile, data: bytes) -> str | None:
    """The page's text in its declared charset (UTF-8 when it declares none), decoded
    strictly, or None after recording ``HTML_UNREADABLE``."""
    match = _CHARSET_RE.search(data)
    declared = match.group(1).decode("ascii") if match else None
    name = declared or _DEFAULT_CHARSET
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        ctx.log.error(IssueCode.HTML_UNREADABLE, f"unknown charset {name!r} declared", source.path)
        return None
    try:
        return data.decode("utf-8-sig" if codec == "utf-8" else codec, "strict")
    except UnicodeDecodeError as error:
        if codec == "shift_jis":
            fallback = decode_cp932(data)
            if fallback is not None:
                ctx.log.warning(
                    IssueCode.HTML_CP932_FALLBACK,
                    f"not valid Shift_JIS at byte {error.start}; read as CP932",
                    source.path,
                )
                return fallback
        what = f"its declared charset {declared!r}" if declared else "UTF-8 (no charset declared)"
        ctx.log.error(
            IssueCode.HTML_UNREADABLE,
            f"not valid in {what} at byte {error.start}: {error.reason}",
            source.path,
        )
        return None


def _parse(ctx: BuildContext, source: SourceFile, text: str) -> etree._Element | None:
    """The element tree of the page, never touching the network and keeping no comments
    or processing instructions; ``HTML_RECOVERY_USED`` when libxml2 had to repair markup."""
    parser = etree.HTMLParser(
        recover=True,
        no_network=True,
        remove_comments=True,
        remove_pis=True,
        encoding="utf-8",
    )
    try:
        root = etree.fromstring(text.encode("utf-8"), parser)
    except etree.LxmlError as error:
        ctx.log.error(
            IssueCode.HTML_UNREADABLE,
            f"the HTML parser gave up ({type(error).__name__})",
            source.path,
        )
        return None
    errors = parser.error_log
    if len(errors) > 0:
        first = errors[0]
        # The type name only: libxml2's message text may quote the input and name paths.
        ctx.log.warning(
            IssueCode.HTML_RECOVERY_USED,
            f"the HTML parser recovered from {len(errors)} markup error(s); "
            f"first {first.type_name} at line {first.line}",
            source.path,
        )
    if root is None:
        ctx.log.error(IssueCode.HTML_UNREADABLE, "the file holds no HTML content", source.path)
    return root


def _span(cell: etree._Element, name: str) -> int | None:
    """A cell's ``colspan`` / ``rowspan`` (1 when absent), None when it is not a number."""
    value = cell.get(name)
    if value is None:
        return 1
    value = value.strip()
    return int(value) if value.isascii() and value.isdigit() else None


def _text(cell: etree._Element) -> str:
    """The cell's text content with every whitespace run made one space."""
    return " ".join("".join(cell.itertext()).split())


def _tables(ctx: BuildContext, source: SourceFile, root: etree._Element) -> etree._Element | None:
    """The one table of the page: ``HTML_NO_TABLE`` without any; with several, the only one
    that has data rows of at least two cells. A table holding another is layout around the
    data (a menu beside the content), never data itself: only innermost tables count."""
    tables = root.xpath("//table[not(.//table)]")
    if not tables:
        ctx.log.warning(IssueCode.HTML_NO_TABLE, "the page holds no table; retained", source.path)
        return None
    if len(tables) > 1:
        tables = [t for t in tables if t.xpath(".//tr[count(td | th) >= 2]")]
        if len(tables) != 1:
            ctx.log.error(
                IssueCode.HTML_TABLE_INVALID,
                f"{len(tables)} tables of data where the file has one",
                source.path,
            )
            return None
    table: etree._Element = tables[0]
    return table


def read_html_table(ctx: BuildContext, source: SourceFile, layout: TableLayout) -> HtmlTable | None:
    """The data rows of the file's table, or None when nothing can be read.

    Rows without enough cells are quarantined one by one (``HTML_TABLE_INVALID`` at their
    ``table-row:N``), so that a file's every bad row is found in one build. Text of
    ``<script>`` and ``<style>`` elements is dropped: it is never page content, and nothing
    of the page is ever run or followed.
    """
    text = _decode(ctx, source, ctx.read_bytes(source))
    if text is None:
        return None
    root = _parse(ctx, source, text)
    if root is None:
        return None
    etree.strip_elements(root, "script", "style", with_tail=False)
    for line_break in root.iter("br"):  # a line break separates words like a space does
        line_break.tail = " " + (line_break.tail or "")
    found = _tables(ctx, source, root)
    if found is None:
        return None
    # A premature </table> leaves rows after it outside the table, where recovery keeps them:
    # they are quarantined, not dropped without a word.
    stray = root.xpath("//*[self::td or self::th][not(ancestor::table)]")
    if stray:
        ctx.log.current_raw = [_text(cell) for cell in stray]
        ctx.log.error(
            IssueCode.HTML_TABLE_INVALID,
            f"{len(stray)} table cell(s) outside the table",
            source.path,
            "outside-table",
        )
        ctx.log.current_raw = None
    rows = found.xpath("./tr | ./thead/tr | ./tbody/tr | ./tfoot/tr")
    table = HtmlTable()
    if not rows:
        return table
    head = rows[0].xpath("./td | ./th")
    head_text = [_text(cell) for cell in head]
    first = 1
    all_th = bool(head) and all(cell.tag == "th" for cell in head)
    known = layout.known(head_text)
    if all_th or known or not (head_text and layout.is_data(head_text[0])):
        first = 2
        if not known:
            ctx.log.warning(
                IssueCode.HTML_HEADER_UNKNOWN,
                f"header {_shown(', '.join(head_text))} is not a known wording; columns read "
                "by position",
                source.path,
                "table-row:1",
            )
    for number, row in enumerate(rows[first - 1 :], start=first):
        cells = row.xpath("./td | ./th")
        if len(cells) == 1 and (_span(cells[0], "colspan") or 1) > 1:
            continue  # the footer: a note spanning the table, not a record
        if not cells:
            continue
        table.records += 1
        locator = f"table-row:{number}"
        texts = [_text(cell) for cell in cells]
        spans_ok = all(
            _span(cell, "colspan") == 1 and _span(cell, "rowspan") == 1 for cell in cells
        )
        if not layout.min_columns <= len(cells) <= layout.columns or not spans_ok:
            spanned = "" if spans_ok else " (some spanning rows or columns)"
            ctx.log.current_raw = texts
            ctx.log.error(
                IssueCode.HTML_TABLE_INVALID,
                f"{len(cells)} cells{spanned} where the table has {layout.min_columns} to "
                f"{layout.columns} columns",
                source.path,
                locator,
            )
            ctx.log.current_raw = None
            continue
        table.rows.append(TableRow(locator, tuple(texts)))
    return table


def read_table_document(
    ctx: BuildContext,
    source: SourceFile,
    layout: TableLayout,
    document: tuple[str, str, str, str],
    read_row: Callable[[DocumentState, TableRow], None],
) -> FileResult:
    """Read the file's table as one document, ``read_row`` filling it row by row.

    ``document`` is (key, kind, language, title); ``{stem}`` in the key and the title is the
    file stem. While ``read_row`` runs, the row's cells are the raw text quarantined with
    whatever it records (ADR 0009).
    """
    table = read_html_table(ctx, source, layout)
    if table is None:
        return FileResult()
    key, kind, language, title = document
    stem = PurePosixPath(source.path).stem
    state = ctx.document(
        key.format(stem=stem),
        kind,
        language,
        title.format(stem=stem),
        source=source,
        locator="table-row:1",
    )
    for row in table.rows:
        ctx.log.current_raw = list(row.cells)
        read_row(state, row)
    ctx.log.current_raw = None
    return FileResult(table.records)
