"""Foreign-looking packages: a generated package rewritten the way other writers could.

A variant changes *how* a copy of a generated package is written (syntax, encodings, code
spellings, names, markup, what holds the release) while keeping *what* it says, so the same
lookups must answer the same (ADR 0009, ADR 0019). The variants were written from
docs/pmgs-source-format.md, not from the adapters. :data:`VARIANT_KINDS` says per variant
what a correct build reports (:class:`Variant`); :func:`make_variant` applies one in place.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pmgs_testkit import _variant_containers as z
from pmgs_testkit import _variant_csv as c
from pmgs_testkit import _variant_documents as d
from pmgs_testkit import _variant_indexing as i
from pmgs_testkit._variant_documents import HTML_GROUPS, IPC_KAISEI

__all__ = ["VARIANT_KINDS", "Variant", "make_variant"]


@dataclass(frozen=True)
class Variant:
    """What a correct build of one variant reports, beyond answering like the base.

    ``warnings``: build-issue codes that must be present (others may be too).
    ``quarantined``: exact count of quarantined rows. ``needs_documents``: the variant edits
    the XML/HTML/PDF groups, so the base must be generated ``with_documents=True``.
    ``extra_concepts``: ``(scheme, code)`` the variant adds (all else is unchanged).
    ``dropped_groups``: data groups the variant removes (their documents are gone).
    ``extra_code_marker``: a text in the code of every concept the variant adds (``:`` for
    IPC indexing codes), for additions too many to list: those concepts, their revisions,
    texts, properties and relations are the variant's, everything else is the base's.
    """

    description: str
    warnings: frozenset[str] = frozenset()
    quarantined: int = 0
    needs_documents: bool = False
    extra_concepts: tuple[tuple[str, str], ...] = ()
    dropped_groups: frozenset[str] = frozenset()
    extra_code_marker: str = ""
    source: str = ""
    """What the build is given, relative to the package root (``{name}``: its name)."""
    needs_release: bool = False
    """Nothing in the source names the release: the build is given ``release=``."""
    ignored: tuple[str, ...] = ()
    """Exactly what the build reports as ignored, relative to :attr:`source`."""


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
    extra_code_marker: str = "",
) -> None:
    """Register one variant; the edit stays private so that the registry is plain data."""
    VARIANT_KINDS[kind] = Variant(
        description,
        frozenset(warnings),
        needs_documents=needs_documents,
        extra_concepts=extra_concepts,
        dropped_groups=dropped_groups,
        extra_code_marker=extra_code_marker,
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
    "ipc_indexing_codes",
    i.indexing_codes,
    "IPC 4-7 files end a section with indexing codes written with ':' (C11D   1:    04), "
    "4.5 % of each old edition's records",
    extra_code_marker=":",
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
    d.copyright_bom,
    "the COPYRGHT file starts with a UTF-8 BOM (CRLF line end)",
)
_add(
    "copyright_renamed",
    d.copyright_renamed,
    "the COPYRGHT file is COPYRGHT/COPYRGHT, without an extension",
)

# ---------------------------------------------------------------- HTML and XML documents


def _pages(
    kind: str, groups: tuple[str, ...], edit: Callable[[str], str], description: str, *warnings: str
) -> None:
    """Register a variant that edits the text of every page of ``groups`` (needs documents)."""
    _add(
        kind,
        lambda root: d.edit_html(root, groups, edit),
        description,
        *warnings,
        needs_documents=True,
    )


_KAISEI: Final = (IPC_KAISEI,)
_pages(
    "html_english_headers_ipc_kaisei",
    _KAISEI,
    d.header(("Old IPC", "Effective", "New IPC", "Effective")),
    "IPC_KAISEI tables headed Old IPC, Effective, New IPC, Effective",
)
_add(
    "html_english_headers_add_code",
    lambda root: d.headers_by_group(
        root,
        {
            "FTERM/ADD_CODE": ("Theme", "Code", "Description"),
            "FTERM/ADD_CODE_E": ("Theme", "Code", "Explanation"),
        },
    ),
    "ADD_CODE (ja and en) tables headed Theme, Code, Description/Explanation",
    needs_documents=True,
)
_pages(
    "html_alternative_japanese_header",
    ("FTERM/ADD_CODE",),
    d.header(("テーマコード", "付加コード", "内容")),
    "ADD_CODE tables with 内容 where we write 説明",
)
_pages(
    "html_unknown_header_wording",
    _KAISEI,
    d.header(("改正前記号", "改正前版", "改正後記号", "改正後版")),
    "IPC_KAISEI tables headed in wording of the writer's own (columns by position)",
    "HTML_HEADER_UNKNOWN",
)
_pages(
    "html_header_td_cells",
    HTML_GROUPS,
    d.header_cells_td,
    "every HTML header row written with <td> cells instead of <th>",
)
_pages(
    "html_two_column_ipc_kaisei",
    _KAISEI,
    d.two_column_kaisei,
    "IPC_KAISEI with two columns, code and version in one cell: G06F 3/048 (2006.01)",
)
_pages(
    "html_versions_parenthesised",
    _KAISEI,
    d.parenthesised_versions,
    "IPC_KAISEI versions written (2006.01) as in the IPC 8 CSVs",
)
_pages(
    "html_compact_ipc_codes",
    _KAISEI,
    d.compact_kaisei_codes,
    "IPC_KAISEI codes without the space after the subclass (G06F3/048)",
)
_add(
    "html_index_pages",
    d.index_pages,
    "an index.html with links and no table in IPC_KAISEI, ADD_CODE and ADD_CODE_E",
    "HTML_NO_TABLE",
    needs_documents=True,
)
_pages(
    "html_upper_case_markup",
    HTML_GROUPS,
    d.upper_case_markup,
    'every HTML tag and attribute name upper case (<TD COLSPAN="4">)',
)
_pages("html_thead_tbody", HTML_GROUPS, d.thead_tbody, "HTML tables with <thead> and <tbody>")
_pages(
    "html_pretty_printed",
    HTML_GROUPS,
    d.pretty_printed,
    "HTML indented one cell per line, whitespace around every cell's text",
)
_pages(
    "html_no_footer",
    HTML_GROUPS,
    d.no_footer,
    "HTML tables without the one-cell colspan footer row",
)
_add(
    "html_ipc_kaisei_utf8",
    lambda root: d.utf8_page(root, IPC_KAISEI),
    'IPC_KAISEI pages in UTF-8 with <meta charset="UTF-8"> instead of Shift_JIS',
    needs_documents=True,
)
_add(
    "xml_utf8",
    d.utf8_xml,
    "FI revision XML encoded and declared as UTF-8 instead of Shift_JIS",
    needs_documents=True,
)


# ---------------------------------------------------------------- containers (ADR 0019)
# The release's files unchanged; what holds them changes: folders around it, a ZIP, and what
# systems and people leave beside it. Registered apart from the format variants above.

_MACOS_IGNORED: Final = tuple(
    sorted({"__MACOSX/"} | {p for p in z.MACOS_LEFTOVERS if not p.startswith("__MACOSX/")})
)
_NOTES_IGNORED: Final = tuple(sorted(z.NOTES_AND_LOCKS))


def _container(
    kind: str,
    edit: Edit,
    description: str,
    *,
    source: str = "",
    needs_release: bool = False,
    ignored: tuple[str, ...] = (),
) -> None:
    """Register one container variant; it warns ``SOURCE_IGNORED`` when it ignores."""
    warnings = frozenset({"SOURCE_IGNORED"} if ignored else ())
    VARIANT_KINDS[kind] = Variant(
        description, warnings, source=source, needs_release=needs_release, ignored=ignored
    )
    _EDITS[kind] = edit


_container(
    "dir_nested_one_level",
    z.nest,
    "the release folder inside a folder of the same name (Windows Extract All)",
)
_container(
    "dir_nested_two_levels",
    lambda root: z.nest(root, "pmgs-download"),
    "the release folder two folders down (X/pmgs-download/JPPM…)",
)
_container(
    "zip_nested_one_level",
    lambda root: z.zip_release(root, f"{root.name}/", z.nest),
    "a ZIP whose release folder sits inside a folder of the same name",
    source="{name}.zip",
)
_container(
    "zip_nested_two_levels",
    lambda root: z.zip_release(root, f"{root.name}/", lambda r: z.nest(r, "pmgs-download")),
    "a ZIP whose release folder sits two folders down",
    source="{name}.zip",
)
_container(
    "zip_contents_at_root",
    lambda root: z.zip_release(root, ""),
    "a ZIP of the release folder's contents, without the folder",
    source="{name}.zip",
    needs_release=True,
)


# What systems and people leave beside a release, each in a copied folder and in a ZIP:
# (name, the leftovers, what the build ignores, the folder's description, the ZIP's).
_LEFTOVERS: Final = (
    (
        "macos_leftovers",
        z.MACOS_LEFTOVERS,
        _MACOS_IGNORED,
        "a folder copied from a Mac: __MACOSX/, ._ resource forks and .DS_Store files",
        "a ZIP re-packed on a Mac: __MACOSX/ beside the release folder, ._ files, .DS_Store",
    ),
    (
        "notes_and_locks",
        z.NOTES_AND_LOCKS,
        _NOTES_IGNORED,
        "read-me notes beside the release folder, Thumbs.db, desktop.ini and a ~$ lock file",
        "a ZIP with read-me notes beside the release folder and Windows/Office leftovers",
    ),
)


def _folder_with(found: tuple[str, ...]) -> Edit:
    return lambda root: [*z.nest(root), *z.leftovers(root, found)]


def _zip_with(found: tuple[str, ...]) -> Edit:
    return lambda root: z.zip_release(root, "", z.nest, lambda r: z.leftovers(r, found))


for _name, _found, _ignored, _in_folder, _in_zip in _LEFTOVERS:
    _container(f"dir_{_name}", _folder_with(_found), _in_folder, ignored=_ignored)
    _container(f"zip_{_name}", _zip_with(_found), _in_zip, source="{name}.zip", ignored=_ignored)
