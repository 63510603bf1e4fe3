"""The one table of a package HTML file (``IPC_KAISEI``, ``FTERM/ADD_CODE(_E)``), read strictly.

The HTML files of the package are hand-made pages with markup errors (an unclosed ``<font>``
in the footer row), so only libxml2's recovering HTML parser reads them; what it had to repair
is reported once per file as ``HTML_RECOVERY_USED``. Everything else fails closed: the bytes
must decode strictly in the charset the page declares, the page must hold exactly one table
whose header row is the one the data group is known to have, and every other row is either
the one-cell footer that spans the table or a data row of exactly the header's width.

Decoding is done here, not by libxml2: its iconv ``Shift_JIS`` turns the ASCII bytes ``\\``
and ``~`` into ``¥`` and ``‾``, where browsers (and Python) keep them ASCII, and it replaces
undecodable bytes silently. The strictly decoded text is handed to the parser as UTF-8 bytes
with the encoding fixed, so what is parsed is exactly what was checked.

``table-row:N`` is the N-th ``<tr>`` of the table, 1-based, the header row being 1: the row a
reader counts when looking at the page.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import Final

from lxml import etree  # type: ignore[import-untyped]  # lxml ships no stubs

from pmgs_build.adapters.base import BuildContext
from pmgs_build.issues import IssueCode
from pmgs_build.model import SourceFile

__all__ = ["HtmlTable", "TableRow", "read_html_table"]

_CHARSET_RE: Final = re.compile(
    rb"""<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE
)
"""The first charset declaration, ``<meta charset=…>`` or ``<meta http-equiv … charset=…>``;
the declaration itself is ASCII in every encoding the package could use."""
_DEFAULT_CHARSET: Final = "utf-8"
_SHOWN: Final = 120
"""Characters of package text quoted in a message at most."""


@dataclass(frozen=True, slots=True)
class TableRow:
    """One data row: its ``table-row:N`` locator and its cells' text."""

    locator: str
    cells: tuple[str, ...]


@dataclass(slots=True)
class HtmlTable:
    """The data rows of a table that passed the header check.

    ``records`` counts every row that is neither the header nor a footer, including rows
    rejected for their width (those are errors and absent from ``rows``).
    """

    rows: list[TableRow] = field(default_factory=list)
    records: int = 0


def _shown(text: str) -> str:
    """Package text quoted in a message: short, and as a repr so that nothing is interpreted."""
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "…")


_CP932_UNDEFINED: Final = frozenset("\x80\uf8f0\uf8f1\uf8f2\uf8f3")
"""What Python's CP932 codec makes of the bytes Windows-31J leaves undefined (0x80, 0xA0,
0xFD-0xFF): a page holding them is not CP932 either."""


def _cp932(data: bytes) -> str | None:
    """``data`` as CP932 (the Windows superset of Shift_JIS), or None when it is not."""
    try:
        text = data.decode("cp932", "strict")
    except UnicodeDecodeError:
        return None
    return None if not _CP932_UNDEFINED.isdisjoint(text) else text


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
            fallback = _cp932(data)
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


def read_html_table(
    ctx: BuildContext, source: SourceFile, header: tuple[str, ...]
) -> HtmlTable | None:
    """The data rows of the file's table under ``header``, or None when nothing can be read
    (``HTML_UNREADABLE``, or ``HTML_TABLE_INVALID`` for the table as a whole).

    Rows of another width are reported one by one (``HTML_TABLE_INVALID`` at their
    ``table-row:N``) and left out, so that a file's every bad row is found in one build.
    Text of ``<script>`` and ``<style>`` elements is dropped: it is never page content, and
    nothing of the page is ever run or followed.
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
    tables = root.xpath("//table[not(ancestor::table)]")
    if not tables:
        ctx.log.error(IssueCode.HTML_UNREADABLE, "the file holds no table", source.path)
        return None
    if len(tables) > 1:
        ctx.log.error(
            IssueCode.HTML_TABLE_INVALID,
            f"{len(tables)} tables where the file has one",
            source.path,
        )
        return None
    # A premature </table> leaves the rows after it outside the table, where recovery keeps
    # them: reading on would drop them without a word.
    stray = root.xpath("//*[self::tr or self::td or self::th][not(ancestor::table)]")
    if stray:
        ctx.log.error(
            IssueCode.HTML_TABLE_INVALID,
            f"{len(stray)} table row(s) or cell(s) outside the table",
            source.path,
        )
        return None
    rows = tables[0].xpath("./tr | ./thead/tr | ./tbody/tr | ./tfoot/tr")
    width = len(header)
    head = rows[0].xpath("./td | ./th") if rows else []
    found = tuple(_text(cell) for cell in head)
    if found != header or any(cell.tag != "th" for cell in head):
        ctx.log.error(
            IssueCode.HTML_TABLE_INVALID,
            f"header row {_shown(', '.join(found))} where {source.data_group} has "
            f"{', '.join(header)} (as <th> cells)",
            source.path,
            "table-row:1",
        )
        return None
    table = HtmlTable()
    for number, row in enumerate(rows[1:], start=2):
        cells = row.xpath("./td | ./th")
        if len(cells) == 1 and _span(cells[0], "colspan") == width:
            continue  # the footer: a note spanning the table, not a record
        table.records += 1
        locator = f"table-row:{number}"
        spans_ok = all(
            _span(cell, "colspan") == 1 and _span(cell, "rowspan") == 1 for cell in cells
        )
        if len(cells) != width or not spans_ok:
            spanned = "" if spans_ok else " (some spanning rows or columns)"
            ctx.log.error(
                IssueCode.HTML_TABLE_INVALID,
                f"{len(cells)} cells{spanned} where the table has {width} columns",
                source.path,
                locator,
            )
            continue
        table.rows.append(TableRow(locator, tuple(_text(cell) for cell in cells)))
    return table
