"""Foreign-looking packages: a generated package rewritten the way other writers could.

Every other test of the builder reads packages that :func:`generate_package` wrote, so parser
and generator agree by construction. A variant takes a copy of such a package and changes
*how* it is written (header rows, quoting, line ends, encodings, code spellings, names, HTML
markup, extra pages, a missing optional group) while keeping *what* it says: the same codes,
texts and relations, so that the same lookups must answer the same. The variants were
written from ``docs/pmgs-source-format.md`` and the generated files, not from the builder's
adapters: they are the packages a new user might bring, not the ones our parser expects.

:data:`VARIANT_KINDS` says, per variant, what a correct build reports: the build-issue
warning codes that must be present, the exact number of quarantined rows, whether the
variant needs a package written ``with_documents=True``, concepts it adds (the ``Z`` section
row) and groups it removes. :func:`make_variant` applies one in place.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pmgs_build.testing import _variant_csv as c
from pmgs_build.testing._variant_csv import BOM, require

__all__ = ["VARIANT_KINDS", "Variant", "make_variant"]


@dataclass(frozen=True)
class Variant:
    """What a correct build of one variant reports, beyond answering like the base.

    ``warnings``: build-issue codes that must be present (others may be too).
    ``quarantined``: exact count of quarantined rows. ``needs_documents``: the variant edits
    the XML/HTML/PDF groups, so the base must be generated ``with_documents=True``.
    ``extra_concepts``: ``(scheme, code)`` the variant adds (all else is unchanged).
    ``dropped_groups``: data groups the variant removes (their documents are gone).
    """

    description: str
    warnings: frozenset[str] = frozenset()
    quarantined: int = 0
    needs_documents: bool = False
    extra_concepts: tuple[tuple[str, str], ...] = ()
    dropped_groups: frozenset[str] = frozenset()


Edit = Callable[[Path], list[Path]]

VARIANT_KINDS: Final[dict[str, Variant]] = {}
_EDITS: Final[dict[str, Edit]] = {}


def _add(
    kind: str,
    edit: Edit,
    description: str,
    *warnings: str,
    needs_documents: bool = False,
    extra_concepts: tuple[tuple[str, str], ...] = (),
    dropped_groups: frozenset[str] = frozenset(),
) -> None:
    """Register one variant; the edit stays private so that the registry is plain data."""
    VARIANT_KINDS[kind] = Variant(
        description,
        frozenset(warnings),
        needs_documents=needs_documents,
        extra_concepts=extra_concepts,
        dropped_groups=dropped_groups,
    )
    _EDITS[kind] = edit


def make_variant(package_root: Path, kind: str) -> list[Path]:
    """Rewrite the generated package at ``package_root`` (the ``JPPM…`` directory) in place.

    Use a copy: the package is changed for good. Returns the files changed, added or
    removed (renamed files and directories under their new names). Raises :class:`ValueError` for an
    unknown kind or when the package lacks what the variant rewrites (for example the HTML
    groups of a package generated without documents).
    """
    if kind not in _EDITS:
        raise ValueError(f"unknown variant {kind!r}; known: {', '.join(sorted(_EDITS))}")
    root = Path(package_root)
    if not (root / "COPYRGHT").is_dir():
        raise ValueError(f"{root} is not a generated package directory")
    return _EDITS[kind](root)


# ---------------------------------------------------------------- HTML, XML and COPYRGHT edits
# The pages another company's tools write differ in header wording, markup style, encoding and
# in pages that hold no table at all, while the rows they list stay the same.

IPC_KAISEI: Final = "IPC_KAISEI"
ADD_CODE: Final = ("FTERM/ADD_CODE", "FTERM/ADD_CODE_E")
HTML_GROUPS: Final = (IPC_KAISEI, *ADD_CODE)

_HEADER_ROW: Final = re.compile(r"<tr>(?:<th>[^<]*</th>)+</tr>")
_FOOTER_ROW: Final = re.compile(r'<tr><td colspan="\d+">.*?</tr>(?:\r\n)?', re.DOTALL)
_KAISEI_ROW: Final = re.compile(
    r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>"
)
_SHIFT_JIS_META: Final = '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'


def html_files(root: Path, group: str) -> list[Path]:
    """The table pages of one HTML group."""
    return sorted((root / group).glob("*.html"))


def _encoding(data: bytes) -> str:
    """The generated pages declare their charset; IPC_KAISEI is Shift_JIS (CP932 bytes)."""
    return "cp932" if b"charset=Shift_JIS" in data[:400] else "utf-8"


def edit_html(root: Path, groups: tuple[str, ...], edit: Callable[[str], str]) -> list[Path]:
    """Apply a text edit to every page of the groups, keeping each page's encoding."""
    changed = []
    for group in groups:
        for path in html_files(root, group):
            data = path.read_bytes()
            encoding = _encoding(data)
            text = data.decode(encoding)
            if (new := edit(text)) != text:
                path.write_bytes(new.encode(encoding))
                changed.append(path)
    return require(changed, f"HTML pages of {', '.join(groups)}")


def header(words: tuple[str, ...], cell: str = "th") -> Callable[[str], str]:
    """Replace the header row of a table by one in other words (or other cell tags)."""
    row = "<tr>" + "".join(f"<{cell}>{word}</{cell}>" for word in words) + "</tr>"
    return lambda text: _HEADER_ROW.sub(row, text, count=1)


def headers_by_group(root: Path, words: dict[str, tuple[str, ...]]) -> list[Path]:
    """Per-group header wording (the ja and en ADD_CODE tables say different things)."""
    changed: list[Path] = []
    for group, group_words in words.items():
        changed += edit_html(root, (group,), header(group_words))
    return changed


def header_cells_td(text: str) -> str:
    """The header row written with ``<td>`` like every other row (no ``<th>`` at all)."""
    match = _HEADER_ROW.search(text)
    if match is None:
        return text
    row = match.group(0).replace("<th>", "<td>").replace("</th>", "</td>")
    return text[: match.start()] + row + text[match.end() :]


def two_column_kaisei(text: str) -> str:
    """IPC revision rows as two cells, each a code with its version: ``G06F 3/048 (2006.01)``.

    Fewer columns than ours, still unambiguous: the version is in parentheses, as in the
    IPC 8 CSVs.
    """
    text = header(("旧IPC", "新IPC"))(text)
    text = _KAISEI_ROW.sub(r"<tr><td>\1 (\2)</td><td>\3 (\4)</td></tr>", text)
    return text.replace('colspan="4"', 'colspan="2"')


def parenthesised_versions(text: str) -> str:
    """Versions as ``(2006.01)``, the spelling of the IPC 8 CSV files."""
    return _KAISEI_ROW.sub(r"<tr><td>\1</td><td>(\2)</td><td>\3</td><td>(\4)</td></tr>", text)


def compact_kaisei_codes(text: str) -> str:
    """IPC codes without the space after the subclass (``G06F3/048``)."""
    return _KAISEI_ROW.sub(
        lambda m: (
            "<tr>" + "".join(f"<td>{cell.replace(' ', '')}</td>" for cell in m.groups()) + "</tr>"
        ),
        text,
    )


def upper_case_markup(text: str) -> str:
    """``<TABLE BORDER="1">``, ``<TD COLSPAN="4">``: the markup of older HTML editors."""
    text = re.sub(r"(</?)([a-z]+)", lambda m: m.group(1) + m.group(2).upper(), text)
    return re.sub(r'(?<=\s)([a-z-]+)(?==")', lambda m: m.group(1).upper(), text)


def thead_tbody(text: str) -> str:
    """The header row inside ``<thead>``, the data rows inside ``<tbody>``."""
    match = _HEADER_ROW.search(text)
    if match is None:
        return text
    before, row, after = text[: match.start()], match.group(0), text[match.end() :]
    after = after.replace("</table>", "</tbody>\r\n</table>", 1)
    return f"{before}<thead>{row}</thead>\r\n<tbody>{after}"


def pretty_printed(text: str) -> str:
    """One cell per line, indented, with whitespace inside every cell around its text."""
    text = re.sub(r"<tr>", "\r\n  <tr>", text)
    text = re.sub(r"<(t[hd])([^>]*)>", r"\r\n    <\1\2>\r\n      ", text)
    text = re.sub(r"</(t[hd])>", r"\r\n    </\1>", text)
    return text.replace("</tr>", "\r\n  </tr>")


def no_footer(text: str) -> str:
    """Tables without the one-cell note row under the data."""
    return _FOOTER_ROW.sub("", text)


def utf8_page(root: Path, group: str) -> list[Path]:
    """A Shift_JIS page rewritten as UTF-8, declared with ``<meta charset="UTF-8">``."""
    changed = []
    for path in html_files(root, group):
        text = path.read_bytes().decode("cp932")
        if _SHIFT_JIS_META not in text:
            raise ValueError(f"{path.name}: no Shift_JIS declaration to replace")
        path.write_bytes(text.replace(_SHIFT_JIS_META, '<meta charset="UTF-8">').encode())
        changed.append(path)
    return require(changed, f"Shift_JIS pages of {group}")


def index_pages(root: Path) -> list[Path]:
    """An ``index.html`` listing the tables of its directory: a page with no table."""
    added = []
    for group in HTML_GROUPS:
        links = "".join(
            f'<li><a href="{page.name}">{page.stem}</a></li>\r\n'
            for page in html_files(root, group)
        )
        path = root / group / "index.html"
        path.write_bytes(
            (
                '<!DOCTYPE html>\r\n<html lang="ja">\r\n<head>\r\n<meta charset="UTF-8">\r\n'
                f"<title>{group} 一覧</title>\r\n</head>\r\n<body>\r\n<h1>{group}</h1>\r\n"
                f"<ul>\r\n{links}</ul>\r\n</body>\r\n</html>\r\n"
            ).encode()
        )
        added.append(path)
    return added


def utf8_xml(root: Path) -> list[Path]:
    """FI revision documents written as UTF-8 and declared so (not Shift_JIS)."""
    changed = []
    for path in sorted((root / "FI/FI_KAISEI_DOC").glob("*.xml")):
        text = path.read_bytes().decode("cp932")
        declaration = '<?xml version="1.0" encoding="Shift_JIS"?>'
        if not text.startswith(declaration):
            raise ValueError(f"{path.name}: no Shift_JIS declaration to replace")
        text = '<?xml version="1.0" encoding="UTF-8"?>' + text[len(declaration) :]
        path.write_bytes(text.encode())
        changed.append(path)
    return require(changed, "FI revision XML")


def _copyright_file(root: Path) -> Path:
    files = sorted(path for path in (root / "COPYRGHT").iterdir() if path.is_file())
    if len(files) != 1:
        raise ValueError(f"expected one COPYRGHT file, found {len(files)}")
    return files[0]


def copyright_bom(root: Path) -> list[Path]:
    """The attribution file as Windows Notepad saves it: BOM, CRLF."""
    path = _copyright_file(root)
    text = path.read_bytes().decode("utf-8").removeprefix(BOM)
    path.write_bytes((BOM + text.rstrip("\r\n") + "\r\n").encode())
    return [path]


def copyright_renamed(root: Path) -> list[Path]:
    """The attribution file without an extension, named like its directory."""
    path = _copyright_file(root)
    new = path.with_name("COPYRGHT")
    path.rename(new)
    return [new]


# ---------------------------------------------------------------- CSV syntax and encoding

_add(
    "csv_lf_line_ends",
    lambda root: c.rewrite_all(root, line_end="\n"),
    "every CSV record ends in LF instead of CRLF (a Unix tool)",
)
_add(
    "csv_no_bom",
    lambda root: c.set_bom(root, present=False),
    "no CSV file starts with a UTF-8 BOM",
)
_add(
    "csv_bom_everywhere",
    lambda root: c.set_bom(root, present=True),
    "every CSV file starts with a UTF-8 BOM",
)
_add(
    "csv_all_quoted",
    lambda root: c.rewrite_all(root, quoting=csv.QUOTE_ALL),
    'every CSV cell quoted ("G06F   3/   048    ","1",...)',
)
_add(
    "csv_crlf_in_quoted_text",
    c.crlf_in_text,
    "multi-line handbook and explanation cells break lines with CRLF inside the quotes",
)
_add(
    "csv_commas_quoted",
    c.quote_commas,
    "labels with a comma in FTERM_E and FI_KAISEI_LINK quoted as one cell (no repair needed)",
)
_add(
    "csv_trailing_blank_line",
    lambda root: c.edit_bytes(root, lambda data: data + b"\r\n"),
    "every CSV file ends with an empty line after its last record",
)
_add(
    "csv_no_final_line_end",
    lambda root: c.edit_bytes(root, lambda data: data.removesuffix(b"\r\n")),
    "the last record of every CSV file has no line end",
)
_add(
    "csv_header_row_ja",
    lambda root: c.add_header_rows(root, english=False),
    "every CSV file starts with a header row of Japanese column names",
    "CSV_HEADER_ROW",
)
_add(
    "csv_header_row_en",
    lambda root: c.add_header_rows(root, english=True),
    "every CSV file starts with a header row of English column names",
    "CSV_HEADER_ROW",
)
_add(
    "csv_trailing_empty_column",
    lambda root: c.append_column(root, "FI/FI_THEME", ""),
    "every FI/FI_THEME record ends with an empty extra cell (a trailing comma)",
)
_add(
    "csv_extra_trailing_column",
    lambda root: c.append_column(root, "FI/FI", "20260331"),
    "every FI/FI record has a sixth cell (an update date) after the level",
    "CSV_EXTRA_COLUMNS",
)
_add(
    "csv_cp932_group",
    lambda root: c.encode_cp932(root, "FI/FI_TEXT"),
    "FI/FI_TEXT written in Shift_JIS (CP932) without BOM",
    "CSV_CP932_FALLBACK",
)

# ---------------------------------------------------------------- code spellings and rows

_add(
    "codes_compact",
    lambda root: [
        *c.edit_cells(root, "FI/FI_THEME", 0, c.compact),
        *c.edit_cells(root, "IPC/IPC7_TEXT", 0, c.compact),
        *c.edit_cells(root, "FTERM/FTERM_KAISETSU", 0, c.compact),
    ],
    "codes without fixed-width padding (G06F3/048, B60J5/00,501@B, 4C083) in FI_THEME, "
    "IPC7_TEXT and FTERM_KAISETSU",
)
_add(
    "codes_full_width",
    lambda root: c.edit_cells(root, "FI/FI_HB", 0, c.full_width),
    "FI/FI_HB code cells in full-width characters, padding as ideographic spaces",
    "CODE_SPELLING_NORMALISED",
)
_add(
    "ipc_trailing_zero_subgroups",
    lambda root: c.edit_cells(root, "IPC/IPC8U_TEXT", 0, c.trailing_zero),
    "IPC/IPC8U_TEXT subgroups with a redundant trailing zero (G06F   3/   050 for 3/05)",
    "CODE_SPELLING_NORMALISED",
)
_add(
    "ipc_wipo_symbols",
    lambda root: c.edit_cells(root, "IPC/IPC8B_TEXT", 0, c.wipo),
    "IPC/IPC8B_TEXT groups as WIPO 14-character symbols (G06F0003048000)",
)
_add(
    "ipc_subgroup_left_aligned",
    lambda root: c.edit_cells(root, "IPC/IPC6_TEXT", 0, c.left_aligned),
    "IPC/IPC6_TEXT subgroups left-aligned in their fixed width (G06F   3/048   )",
)
_add(
    "fi_section_row_z",
    c.section_z,
    "a bare section row Z heads FI/FI fi_Z_….csv like A … H head theirs",
    extra_concepts=(("fi", "Z"),),
)
_add(
    "concordance_mixed_directions",
    c.mixed_concordance,
    "IPC 4→8 and IPC 7→8 rows of section G inside con_FItoIPC8U_G_….csv",
)

# ---------------------------------------------------------------- names and layout

_add(
    "upper_case_extensions",
    c.upper_extensions,
    "every file extension upper case (.CSV, .HTML, .XML, .XSL, .PDF, .TXT)",
    needs_documents=True,
)
_add(
    "upper_case_file_names",
    c.upper_prefixes,
    "CSV names upper case (FI_G_20260331.csv, FITEXT_G_…, CON_FITOIPC8U_G_…)",
)
_add(
    "lower_case_directories",
    c.lower_directories,
    "every directory name lower case (fi/fi_text, ipc_kaisei, reference/ipc_teigi)",
    needs_documents=True,
)
_add(
    "unknown_directory",
    c.unknown_directory,
    "an extra README/readme.txt beside the data groups",
    "UNKNOWN_DATA_GROUP",
)
_add(
    "missing_optional_group",
    lambda root: c.drop_group(root, "FTERM/FTERM_KAISETSU_E"),
    "no FTERM/FTERM_KAISETSU_E (English explanations) at all",
    "DATA_GROUP_MISSING",
    dropped_groups=frozenset({"FTERM/FTERM_KAISETSU_E"}),
)
_add(
    "copyright_bom",
    copyright_bom,
    "the COPYRGHT file starts with a UTF-8 BOM (CRLF line end)",
)
_add(
    "copyright_renamed",
    copyright_renamed,
    "the COPYRGHT file is COPYRGHT/COPYRGHT, without an extension",
)

# ---------------------------------------------------------------- HTML and XML documents

_add(
    "html_english_headers_ipc_kaisei",
    lambda root: edit_html(
        root, (IPC_KAISEI,), header(("Old IPC", "Effective", "New IPC", "Effective"))
    ),
    "IPC_KAISEI tables headed Old IPC, Effective, New IPC, Effective",
    needs_documents=True,
)
_add(
    "html_english_headers_add_code",
    lambda root: headers_by_group(
        root,
        {
            "FTERM/ADD_CODE": ("Theme", "Code", "Description"),
            "FTERM/ADD_CODE_E": ("Theme", "Code", "Explanation"),
        },
    ),
    "ADD_CODE (ja and en) tables headed Theme, Code, Description/Explanation",
    needs_documents=True,
)
_add(
    "html_alternative_japanese_header",
    lambda root: edit_html(
        root, ("FTERM/ADD_CODE",), header(("テーマコード", "付加コード", "内容"))
    ),
    "ADD_CODE tables with 内容 where we write 説明",
    needs_documents=True,
)
_add(
    "html_unknown_header_wording",
    lambda root: edit_html(
        root, (IPC_KAISEI,), header(("改正前記号", "改正前版", "改正後記号", "改正後版"))
    ),
    "IPC_KAISEI tables headed in wording of the writer's own (columns by position)",
    "HTML_HEADER_UNKNOWN",
    needs_documents=True,
)
_add(
    "html_header_td_cells",
    lambda root: edit_html(root, HTML_GROUPS, header_cells_td),
    "every HTML header row written with <td> cells instead of <th>",
    needs_documents=True,
)
_add(
    "html_two_column_ipc_kaisei",
    lambda root: edit_html(root, (IPC_KAISEI,), two_column_kaisei),
    "IPC_KAISEI with two columns, code and version in one cell: G06F 3/048 (2006.01)",
    needs_documents=True,
)
_add(
    "html_versions_parenthesised",
    lambda root: edit_html(root, (IPC_KAISEI,), parenthesised_versions),
    "IPC_KAISEI versions written (2006.01) as in the IPC 8 CSVs",
    needs_documents=True,
)
_add(
    "html_compact_ipc_codes",
    lambda root: edit_html(root, (IPC_KAISEI,), compact_kaisei_codes),
    "IPC_KAISEI codes without the space after the subclass (G06F3/048)",
    needs_documents=True,
)
_add(
    "html_index_pages",
    index_pages,
    "an index.html with links and no table in IPC_KAISEI, ADD_CODE and ADD_CODE_E",
    "HTML_NO_TABLE",
    needs_documents=True,
)
_add(
    "html_upper_case_markup",
    lambda root: edit_html(root, HTML_GROUPS, upper_case_markup),
    'every HTML tag and attribute name upper case (<TD COLSPAN="4">)',
    needs_documents=True,
)
_add(
    "html_thead_tbody",
    lambda root: edit_html(root, HTML_GROUPS, thead_tbody),
    "HTML tables with <thead> and <tbody>",
    needs_documents=True,
)
_add(
    "html_pretty_printed",
    lambda root: edit_html(root, HTML_GROUPS, pretty_printed),
    "HTML indented one cell per line, whitespace around every cell's text",
    needs_documents=True,
)
_add(
    "html_no_footer",
    lambda root: edit_html(root, HTML_GROUPS, no_footer),
    "HTML tables without the one-cell colspan footer row",
    needs_documents=True,
)
_add(
    "html_ipc_kaisei_utf8",
    lambda root: utf8_page(root, IPC_KAISEI),
    'IPC_KAISEI pages in UTF-8 with <meta charset="UTF-8"> instead of Shift_JIS',
    needs_documents=True,
)
_add(
    "xml_utf8",
    utf8_xml,
    "FI revision XML encoded and declared as UTF-8 instead of Shift_JIS",
    needs_documents=True,
)
