"""The XML, HTML and PDF groups of a synthetic package (written with ``with_documents=True``).

These groups are documents rather than tables, and each carries its own hostile detail that
the builder must handle (docs/pmgs-source-format.md):

* ``FI/FI_KAISEI_DOC/<subclass>.xml``: Shift_JIS revision documents, one per FI subclass, plus
  one retained ``.xsl``. One file holds CP932-only characters, so a strict Shift_JIS parse of
  it fails and decoding as CP932 succeeds. Some ``<FI>`` codes exist only here (deleted codes:
  reference-only), some ``<trans>`` are non-empty ("amended to" edges).
* ``FTERM/ADD_CODE(_E)/*.html``: additional codes per theme, UTF-8.
* ``IPC_KAISEI/*.html``: IPC revision tables, Shift_JIS, whose endpoints are IPC 8U revisions
  the package defines (old = expired revision, new = current revision).
* HTML files that need the parser's recovery mode: an unclosed ``<font>`` in the
  ``colspan`` footer row.
* ``REFERENCE/IPC_TEIGI/*.pdf``: one definition per IPC code, Japanese text on most pages,
  a few pages without any text.

The writer is fed by the CSV writer's single pass over each section tree (one subclass's FI
codes at a time, one IPC 8U code at a time), so it stays streaming: only the IPC revision
edges (a few thousand at full scale) and per-PDF page counts are kept until the end. Every
random choice comes from a stream named after the file or code it concerns, never from the
CSV writer's streams, so switching documents on leaves every CSV byte-identical.
"""

from __future__ import annotations

import math
import random
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from html import escape
from typing import Final, NamedTuple

from pmgs_build.testing._output import LINE_END, Output
from pmgs_build.testing._pdf import LINE_CHARS, ipc_pdf_name, pdf_document
from pmgs_build.testing.vocabulary import SYNTHETIC_MARK_EN, SYNTHETIC_MARK_JA, TextMaker
from pmgs_core import ClassificationCode, ipc_code_from_pdf_name

__all__ = [
    "ADD_CODE_HEADER",
    "ADD_CODE_HEADER_E",
    "CP932_ONLY_TEXT",
    "DOCUMENT_GROUPS",
    "FI_REVISION_STYLESHEET",
    "IPC_KAISEI_HEADER",
    "REAL_DOCUMENT_FILES",
    "DocumentCounts",
    "DocumentWriter",
]

DOCUMENT_GROUPS: Final = (
    "FI/FI_KAISEI_DOC",
    "FTERM/ADD_CODE",
    "FTERM/ADD_CODE_E",
    "IPC_KAISEI",
    "REFERENCE/IPC_TEIGI",
)
"""The XML, HTML and PDF data groups, written only when documents are asked for."""

REAL_DOCUMENT_FILES: Final[dict[str, int]] = {
    "FI/FI_KAISEI_DOC": 639,
    "FTERM/ADD_CODE": 2,
    "FTERM/ADD_CODE_E": 2,
    "IPC_KAISEI": 23,
    "REFERENCE/IPC_TEIGI": 5_906,
}
"""Files per document group of the real release (``FI_KAISEI_DOC``: 638 XML + 1 XSL)."""

FI_REVISION_STYLESHEET: Final = "FI_KAISEI.xsl"
"""Name of the one stylesheet of ``FI/FI_KAISEI_DOC`` (our guess; retained, never parsed)."""

CP932_ONLY_TEXT: Final = "髙①型㈱方式Ⅲ"
"""Characters that CP932 (Windows-31J) has and strict Shift_JIS (JIS X 0208) has not:
an IBM extension kanji, NEC special characters (circled digit, ㈱, Roman numeral)."""

IPC_KAISEI_HEADER: Final = ("旧IPC", "分類の発効日", "新IPC", "分類の発効日")
ADD_CODE_HEADER: Final = ("テーマコード", "付加コード", "説明")
ADD_CODE_HEADER_E: Final = ("Theme code", "Additional code", "Description")

_REAL_INFOR: Final = 110_590
_REAL_PDF_EMPTY_PAGES: Final = 41
_PDF_RATE: Final = 5_906 / 69_850
"""Share of IPC subclass and group codes with a definition PDF (5,906 of the about 69,850
such codes of a full-scale base tree)."""
_PDF_MIN_CHARS: Final = 48
_PDF_MAX_CHARS: Final = 25_111
_FORCED_PDFS: Final = ("G06F", "G06F3/048")
_FORCED_PDFS_FULL: Final = ("B60J",)
_FORCED_REVISED_FI: Final = "G06F3/048"
_HISTORICAL_DEV_BASE: Final = 800
"""Deleted FI codes get development codes 800-999, which the FI table never uses (its
development codes are 101-730), so they can never collide with a current code."""


class _Edge(NamedTuple):
    key: tuple[str, int]
    old: ClassificationCode
    old_version: str
    new: ClassificationCode
    new_version: str


@dataclass(frozen=True)
class DocumentCounts:
    """What was written to the document groups, for :class:`ExpectedCounts`.

    * ``fi_revision_files`` / ``fi_revision_entries``: XML files and their ``infor`` elements;
      ``fi_revision_historical_codes``: distinct ``<FI>`` codes that ``FI/FI`` lacks
      (reference-only); ``fi_revision_amended_to``: ``infor`` with a non-empty ``<trans>``;
      ``cp932_files``: XML files that only decode as CP932 (0 or 1); ``stylesheet_files``: 1.
    * ``additional_code_rows``: table data rows per ADD_CODE group (header/footer excluded).
    * ``ipc_revision_files`` / ``ipc_revision_edges``: IPC_KAISEI files and data rows.
    * ``html_files``: all HTML files; ``html_recovery_files``: relative paths of those that
      need the HTML parser's recovery mode.
    * ``pdf_files``, ``pdf_pages``, ``pdf_empty_pages`` (no extractable text), ``pdf_chars``
      (non-whitespace characters of all pages); ``pdf_page_chars``: file name -> characters per
      page (0 = a page without text), so a test can check any single file.
    """

    fi_revision_files: int
    fi_revision_entries: int
    fi_revision_historical_codes: int
    fi_revision_amended_to: int
    cp932_files: int
    stylesheet_files: int
    additional_code_rows: dict[str, int]
    ipc_revision_files: int
    ipc_revision_edges: int
    html_files: int
    html_recovery_files: tuple[str, ...]
    pdf_files: int
    pdf_pages: int
    pdf_empty_pages: int
    pdf_chars: int
    pdf_page_chars: dict[str, tuple[int, ...]]


def _ipc_cell(code: ClassificationCode) -> str:
    """IPC codes as revision tables print them: ``G06F 3/048`` (a space after the subclass)."""
    return f"{code.canonical[:4]} {code.main_group}/{code.subgroup}"


def _html_page(
    *,
    charset_meta: str,
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    footer: str,
    needs_recovery: bool,
) -> str:
    """One HTML table page. ``needs_recovery`` leaves the footer's ``<font>`` unclosed, the
    defect of the real files that makes libxml2 log an error and recover."""
    lines = [
        '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">',
        '<html lang="ja">',
        "<head>",
        charset_meta,
        f"<title>{escape(title)}</title>",
        "</head>",
        "<body>",
        '<table border="1" cellspacing="0" cellpadding="2">',
        "<tr>" + "".join(f"<th>{escape(cell)}</th>" for cell in header) + "</tr>",
    ]
    lines.extend("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    close = "" if needs_recovery else "</font>"
    lines.append(
        f'<tr><td colspan="{len(header)}"><font size="2">{escape(footer)}{close}</td></tr>'
    )
    lines += ["</table>", "</body>", "</html>"]
    return LINE_END.join(lines) + LINE_END


def _lines(chunk: str) -> list[str]:
    """A page's text in lines of :data:`LINE_CHARS`, a last line of one character joined to
    the line before: pdfium does not extract a text line of a single CJK character, so such a
    line would make the planted page text differ from what any reader gets back."""
    lines = [chunk[i : i + LINE_CHARS] for i in range(0, len(chunk), LINE_CHARS)]
    if len(lines) > 1 and len(lines[-1]) == 1:
        last = lines.pop()
        lines[-1] += last
    return lines


class DocumentWriter:
    """Writes the document groups of one package and tallies them.

    ``rng`` makes a random stream for a purpose name (the plan's seeded factory). The CSV
    writer calls :meth:`fi_subclass` once per FI subclass and :meth:`ipc_code` once per IPC
    code, in tree order, and :meth:`finish` at the end.
    """

    def __init__(
        self,
        out: Output,
        rng: Callable[[str], random.Random],
        *,
        seed: int,
        scale: float,
        with_quirks: bool,
        compact: bool,
        reference_date: date,
        subclasses: int,
        themes: Sequence[str],
        cp932_subclass: str,
    ) -> None:
        self.out = out
        self._rng = rng
        self.seed = seed
        self.scale = scale
        self.with_quirks = with_quirks
        self.compact = compact
        self.reference_date = reference_date
        self.themes = list(themes)
        self.cp932_subclass = cp932_subclass if with_quirks else ""
        self.infor_mean = max(4.0, _REAL_INFOR * scale / max(1, subclasses))
        self.examples: dict[str, str] = {}
        self.tallies: Counter[str] = Counter()
        self.historical: set[str] = set()
        self.recovery_files: list[str] = []
        self.edges: list[_Edge] = []
        self.pdf_page_chars: dict[str, tuple[int, ...]] = {}
        self._order = 0
        self._last_valid: tuple[ClassificationCode, str] | None = None
        self._pending: list[tuple[ClassificationCode, str, str]] = []
        self._group_pdfs = 0
        self._quota_empties = 0
        self._empty_rate = 0.0
        if with_quirks and not compact:
            expected_files = 5_906 * scale
            self._empty_rate = max(0.0, (_REAL_PDF_EMPTY_PAGES * scale - 2) / expected_files)
        self._forced_pdfs = set(_FORCED_PDFS if compact else _FORCED_PDFS + _FORCED_PDFS_FULL)

    def example(self, name: str, value: str) -> None:
        self.examples.setdefault(name, value)

    # ------------------------------------------------------------ FI revision XML

    def fi_subclass(
        self,
        subclass: ClassificationCode,
        fi_codes: Sequence[ClassificationCode],
        links: Sequence[ClassificationCode],
    ) -> None:
        """Write ``FI/FI_KAISEI_DOC/<subclass>.xml`` for the FI codes of one subclass.

        Every code of ``links`` (the subclass's ``FI_KAISEI_LINK`` rows) gets a ``chg`` entry,
        so the links always point at a document that mentions their code.
        """
        name = subclass.canonical
        rng = self._rng(f"kaisei:{name}")
        maker = TextMaker(rng)
        groups = [c for c in fi_codes if c.development_code is None and c.file_symbol is None]
        count = 3 if self.compact else max(4, round(self.infor_mean * rng.uniform(0.5, 1.5)))
        count = max(count, len(links) + 2)
        entries: list[tuple[str, ClassificationCode, ClassificationCode | None]] = []
        entries.extend(("chg", link, None) for link in links)
        revised = [c for c in fi_codes if c.canonical == _FORCED_REVISED_FI]
        entries.extend(("chg", c, None) for c in revised)
        deleted = max(1, round(count * 0.2))
        for index in range(deleted):
            group = groups[index % len(groups)] if groups else None
            if group is None:
                break
            dev = _HISTORICAL_DEV_BASE + index // len(groups)
            if dev > 999:
                break
            old = ClassificationCode(
                scheme="fi",
                kind=group.kind,
                section=group.section,
                class_=group.class_,
                subclass=group.subclass,
                main_group=group.main_group,
                subgroup=group.subgroup,
                development_code=f"{dev:03d}",
            )
            target = None
            if fi_codes and (index == 0 or rng.random() < 0.6):
                target = fi_codes[int(rng.random() * len(fi_codes))]
            entries.append(("del", old, target))
        while len(entries) < count and fi_codes:
            code = fi_codes[int(rng.random() * len(fi_codes))]
            entries.append(("chg" if rng.random() < 0.8 else "new", code, None))
        last_year = self.reference_date.year - 1
        dated = [
            (f"{rng.randint(2010, last_year)}{rng.choice(('01', '04', '07', '10'))}01", entry)
            for entry in entries
        ]
        dated.sort(key=lambda item: item[0])
        cp932 = name == self.cp932_subclass
        lines = [
            '<?xml version="1.0" encoding="Shift_JIS"?>',
            f'<?xml-stylesheet type="text/xsl" href="{FI_REVISION_STYLESHEET}"?>',
            f'<data trg="{name}">',
        ]
        for position, (day, (attr, code, target)) in enumerate(dated):
            title, _ = maker.title()
            other, _ = maker.title()
            if cp932 and position == 0:
                # Both titles, so the characters are there whatever the entry's attr drops.
                title = other = f"{SYNTHETIC_MARK_JA}{CP932_ONLY_TEXT}の電池"
                self.examples["cp932_text"] = other
            old_title, new_title = {
                "chg": (title, other),
                "new": ("", other),
                "del": (title, ""),
            }[attr]
            shown = new_title or old_title
            trans = target.canonical if target is not None else ""
            lines += [
                "<infor>",
                f'<FI attr="{attr}">{code.canonical}</FI>',
                f"<title>{escape(shown)}</title>",
                f"<oldtitle>{escape(old_title)}</oldtitle>",
                f"<newtitle>{escape(new_title)}</newtitle>",
                f"<trans>{trans}</trans>",
                f"<date>{day}</date>",
                "</infor>",
            ]
            self.tallies["infor"] += 1
            if attr == "del":
                self.historical.add(code.canonical)
                self.example("fi_revision_historical_code", code.canonical)
            if trans:
                self.tallies["fi_amended_to"] += 1
                if "fi_revision_amended_from" not in self.examples:
                    self.examples["fi_revision_amended_from"] = code.canonical
                    self.examples["fi_revision_amended_to"] = trans
        lines.append("</data>")
        text = LINE_END.join(lines) + LINE_END
        data = text.encode("cp932" if cp932 else "shift_jis")
        self.out.write_bytes("FI/FI_KAISEI_DOC", f"{name}.xml", data, rows=len(dated))
        self.tallies["xml"] += 1
        if cp932:
            self.tallies["cp932"] += 1
            self.examples["cp932_xml"] = f"FI/FI_KAISEI_DOC/{name}.xml"
        if name == "G06F" or "fi_revision_document" not in self.examples:
            self.examples["fi_revision_document"] = f"fi_revision:{name}"
            self.examples["fi_revision_file"] = f"FI/FI_KAISEI_DOC/{name}.xml"

    def _stylesheet(self) -> None:
        text = LINE_END.join(
            [
                '<?xml version="1.0" encoding="Shift_JIS"?>',
                '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">',
                '<xsl:template match="/data">',
                '<html><body><h1>FI改正情報 <xsl:value-of select="@trg"/></h1>',
                '<table border="1"><xsl:for-each select="infor"><tr>',
                '<td><xsl:value-of select="FI"/></td><td><xsl:value-of select="FI/@attr"/></td>',
                '<td><xsl:value-of select="title"/></td><td><xsl:value-of select="trans"/></td>',
                '<td><xsl:value-of select="date"/></td>',
                "</tr></xsl:for-each></table></body></html>",
                "</xsl:template>",
                "</xsl:stylesheet>",
            ]
        )
        self.out.write_bytes(
            "FI/FI_KAISEI_DOC", FI_REVISION_STYLESHEET, (text + LINE_END).encode("shift_jis"), 0
        )

    # ---------------------------------------------------------------- IPC 8U codes

    def ipc_code(self, code: ClassificationCode, revisions: Sequence[tuple[str, str, str]]) -> None:
        """Take one IPC 8U code with its ``(version, valid_from, valid_to)`` revisions.

        Revision edges: a code with an expired and a current revision gets
        ``(code, old) -> (code, new)``; a code with no current revision gets
        ``(code, last expired) -> (nearest current code of its subclass, its version)``.
        """
        self._order += 1
        if code.kind == "subclass":
            self._last_valid = None
            self._pending.clear()
        current = revisions[-1] if revisions[-1][2] == "99991231" else None
        if current is not None and len(revisions) > 1:
            self._edge(code, revisions[0][0], code, current[0], current[0])
        elif current is None and code.kind in {"main_group", "subgroup"}:
            version, _, valid_to = revisions[-1]
            change = f"{int(valid_to[:4]) + 1}.01"
            if self._last_valid is not None:
                self._edge(code, version, *self._last_valid, change)
            else:
                self._pending.append((code, version, change))
        if current is not None and code.kind in {"main_group", "subgroup"}:
            self._last_valid = (code, current[0])
            for old, version, change in self._pending:
                self._edge(old, version, code, current[0], change)
            self._pending.clear()
        if self._wants_pdf(code):
            self._pdf(code, (current or revisions[-1])[0])

    def _edge(
        self,
        old: ClassificationCode,
        old_version: str,
        new: ClassificationCode,
        new_version: str,
        change: str,
    ) -> None:
        self.edges.append(_Edge((change, self._order), old, old_version, new, new_version))
        if old.canonical == "G06F3/048":
            self.examples["ipc_revision_edge"] = (
                f"{old.canonical} ({old_version}) -> {new.canonical} ({new_version})"
            )

    # ------------------------------------------------------------------ PDFs

    def _wants_pdf(self, code: ClassificationCode) -> bool:
        if code.canonical in self._forced_pdfs:
            return True
        if self.compact or code.kind not in {"subclass", "main_group", "subgroup"}:
            return False
        draw = zlib.crc32(f"{self.seed}:teigi:{code.canonical}".encode()) % 100_000
        return draw < _PDF_RATE * 100_000

    def _pdf(self, code: ClassificationCode, version: str) -> None:
        rng = self._rng(f"teigi:{code.canonical}")
        maker = TextMaker(rng)
        index = self.tallies["pdf"]
        if self.compact:
            target = 420 if code.kind == "subclass" else 150
        elif self.scale >= 0.5 and index == 100:
            target = _PDF_MAX_CHARS  # the largest real file, present at full scale
        else:
            target = _PDF_MIN_CHARS + round(rng.lognormvariate(math.log(165), 1.1))
            target = min(target, _PDF_MAX_CHARS)
        pieces = [code.canonical, f"（{version}）"]
        length = sum(map(len, pieces))
        heading = 0
        while length < target:
            if heading % 4 == 0:
                piece = ("【定義】", "【注】", "【参照】", "【例】")[heading // 4 % 4]
            else:
                piece = maker.sentence()[0]
            heading += 1
            pieces.append(piece)
            length += len(piece)
        text = "".join(pieces)[:target]
        if any(char.isspace() for char in text):
            raise AssertionError("definition text must not contain whitespace")
        pages: list[list[str]] = []
        cap_range = (200, 300) if self.compact else (300, 1000)
        position = 0
        while position < len(text):
            cap = rng.randint(*cap_range)
            if len(text) - (position + cap) == 1:
                cap += 1  # never a last page of one character (see _lines)
            chunk = text[position : position + cap]
            position += cap
            pages.append(_lines(chunk))
        empty_at: int | None = None
        if self.with_quirks:
            if code.canonical == "G06F":
                empty_at = 1
            elif code.canonical == "B60J":
                empty_at = 0
            elif int((index + 1) * self._empty_rate) > self._quota_empties:
                # A quota rather than a coin per file: the count is then exact for the scale
                # (41 at 1.0) instead of scattering around it.
                self._quota_empties += 1
                empty_at = rng.randint(0, len(pages))
        if empty_at is not None:
            pages.insert(empty_at, [])
        padded = True
        if code.main_group is not None and code.canonical != "G06F3/048":
            self._group_pdfs += 1
            padded = self._group_pdfs % 2 == 0
        name = ipc_pdf_name(code, padded=padded)
        if ipc_code_from_pdf_name(name).canonical != code.canonical:
            raise AssertionError(f"{name} does not name {code.canonical}")
        data = pdf_document(pages, title=f"IPC definition {code.canonical}")
        self.out.write_bytes("REFERENCE/IPC_TEIGI", name, data, rows=len(pages))
        chars = tuple(sum(map(len, page)) for page in pages)
        self.pdf_page_chars[name] = chars
        self.tallies["pdf"] += 1
        self.tallies["pdf_pages"] += len(pages)
        self.tallies["pdf_empty_pages"] += chars.count(0)
        self.tallies["pdf_chars"] += sum(chars)
        if code.canonical == "G06F3/048":
            self.examples["ipc_definition_pdf"] = f"REFERENCE/IPC_TEIGI/{name}"
            self.examples["ipc_definition_code"] = code.canonical
            self.examples["ipc_definition_first_page"] = "".join(pages[0])
        if empty_at is not None:
            self.example("ipc_definition_pdf_with_empty_page", f"REFERENCE/IPC_TEIGI/{name}")

    # ------------------------------------------------------------------ the rest

    def finish(self) -> None:
        """Write what needs the whole pass: stylesheet, IPC revision tables, additional codes."""
        self._stylesheet()
        self._ipc_kaisei()
        self._add_code()

    def _needs_recovery(self, group: str, index: int, files: int) -> bool:
        """Which HTML files carry the unclosed ``<font>`` (only with quirks).

        IPC_KAISEI: every file but the last (a single file: that one); ADD_CODE(_E): the
        second file (a single file: ADD_CODE_E's only). So each group has a clean file to
        compare against whenever it has two, and the count is fixed by the file counts.
        """
        if not self.with_quirks:
            return False
        if group == "IPC_KAISEI":
            return files == 1 or index < files - 1
        if files == 1:
            return group == "FTERM/ADD_CODE_E"
        return index == 1

    def _write_html(self, group: str, name: str, text: str, encoding: str, rows: int) -> None:
        self.out.write_bytes(group, name, text.encode(encoding), rows=rows)
        self.tallies["html"] += 1

    def _ipc_kaisei(self) -> None:
        edges = sorted(self.edges, key=lambda edge: edge.key)
        wanted = (
            1 if self.compact else max(2, round(REAL_DOCUMENT_FILES["IPC_KAISEI"] * self.scale))
        )
        files = max(1, min(wanted, len(edges)))
        meta = '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'
        for index in range(files):
            chunk = edges[len(edges) * index // files : len(edges) * (index + 1) // files]
            rows = [
                (_ipc_cell(e.old), e.old_version, _ipc_cell(e.new), e.new_version) for e in chunk
            ]
            name = f"ipc_kaisei_{index + 1:02d}.html"
            recovery = self._needs_recovery("IPC_KAISEI", index, files)
            page = _html_page(
                charset_meta=meta,
                title="IPC改正対照表（合成データ）",
                header=IPC_KAISEI_HEADER,
                rows=rows,
                footer=f"{SYNTHETIC_MARK_JA}発効日は各版の最初の日です。",
                needs_recovery=recovery,
            )
            self._write_html("IPC_KAISEI", name, page, "shift_jis", len(rows))
            if recovery:
                self.recovery_files.append(f"IPC_KAISEI/{name}")
            self.tallies["ipc_edges"] += len(rows)
            self.tallies["ipc_kaisei"] += 1
            if index == 0:
                self.examples["ipc_revision_document"] = f"ipc_revision:{name[:-5]}"

    def _add_code(self) -> None:
        rng = self._rng("add_code")
        files = 1 if self.compact else 2
        meta = '<meta charset="UTF-8">'
        for index in range(files):
            themes = self.themes[
                len(self.themes) * index // files : len(self.themes) * (index + 1) // files
            ]
            rows: list[tuple[str, str, str, str]] = []
            maker = TextMaker(rng)
            for position, theme in enumerate(themes):
                if position and rng.random() >= 0.12:
                    continue
                for number in range(1, rng.randint(1, 2 if self.compact else 5) + 1):
                    ja, en = maker.title()
                    rows.append((theme, f"Z{chr(65 + position % 26)}{number:02d}", ja, en))
            for group, stem, header, language in (
                ("FTERM/ADD_CODE", "addCode", ADD_CODE_HEADER, "ja"),
                ("FTERM/ADD_CODE_E", "addCodeE", ADD_CODE_HEADER_E, "en"),
            ):
                name = f"{stem}_{index + 1}.html"
                recovery = self._needs_recovery(group, index, files)
                cells = [(r[0], r[1], r[2] if language == "ja" else r[3]) for r in rows]
                page = _html_page(
                    charset_meta=meta,
                    title="付加コード（合成データ）" if language == "ja" else "Additional codes",
                    header=header,
                    rows=cells,
                    footer=(
                        f"{SYNTHETIC_MARK_JA}付加コードの一覧です。"
                        if language == "ja"
                        else f"{SYNTHETIC_MARK_EN}list of additional codes."
                    ),
                    needs_recovery=recovery,
                )
                self._write_html(group, name, page, "utf-8", len(cells))
                if recovery:
                    self.recovery_files.append(f"{group}/{name}")
                self.tallies[f"rows:{group}"] += len(cells)
                self.example(
                    "fterm_additional_code_document",
                    f"fterm_additional_code:{language}:{name[:-5]}",
                )
                if rows:
                    self.example("fterm_additional_code_theme", rows[0][0])

    def counts(self) -> DocumentCounts:
        t = self.tallies
        return DocumentCounts(
            fi_revision_files=t["xml"],
            fi_revision_entries=t["infor"],
            fi_revision_historical_codes=len(self.historical),
            fi_revision_amended_to=t["fi_amended_to"],
            cp932_files=t["cp932"],
            stylesheet_files=1,
            additional_code_rows={
                g: t[f"rows:{g}"] for g in ("FTERM/ADD_CODE", "FTERM/ADD_CODE_E")
            },
            ipc_revision_files=t["ipc_kaisei"],
            ipc_revision_edges=t["ipc_edges"],
            html_files=t["html"],
            html_recovery_files=tuple(sorted(self.recovery_files)),
            pdf_files=t["pdf"],
            pdf_pages=t["pdf_pages"],
            pdf_empty_pages=t["pdf_empty_pages"],
            pdf_chars=t["pdf_chars"],
            pdf_page_chars=dict(sorted(self.pdf_page_chars.items())),
        )
