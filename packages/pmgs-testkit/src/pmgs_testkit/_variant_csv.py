"""CSV and file-name edits behind :mod:`pmgs_testkit.variants`.

Every function here rewrites a copy of a generated package the way another writer of the
PMGS format could plausibly have written it, keeping every code, text and relation. They are
written from ``docs/pmgs-source-format.md`` and from the generated files, never from the
builder's adapters, so that a variant tests the parser instead of agreeing with it. Each
function returns the paths it changed, added or removed, and raises :class:`ValueError` when
it found nothing to change: a variant that silently became a no-op would test nothing.
"""

from __future__ import annotations

import csv
import io
import shutil
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from pmgs_testkit._variant_headers import header_words

Quoting = Literal[0, 1, 2, 3]
"""A :mod:`csv` quoting constant (what typeshed accepts for ``quoting=``)."""

BOM: Final = "\ufeff"
CRLF: Final = "\r\n"


@dataclass
class CsvFile:
    """One CSV file as records, with what a rewrite must keep (its BOM)."""

    bom: bool
    rows: list[list[str]]


def read_csv(path: Path) -> CsvFile:
    """Read a generated CSV (UTF-8, optional BOM) with a real CSV reader (quoted newlines)."""
    text = path.read_bytes().decode("utf-8")
    bom = text.startswith(BOM)
    rows = list(csv.reader(io.StringIO(text.removeprefix(BOM), newline="")))
    return CsvFile(bom, rows)


def write_csv(
    path: Path,
    table: CsvFile,
    *,
    quoting: Quoting = csv.QUOTE_MINIMAL,
    line_end: str = CRLF,
    encoding: str = "utf-8",
) -> Path:
    """Write records back; with the defaults an unedited file comes out byte-identical."""
    buffer = io.StringIO(newline="")
    csv.writer(buffer, lineterminator=line_end, quoting=quoting).writerows(table.rows)
    path.write_bytes(((BOM if table.bom else "") + buffer.getvalue()).encode(encoding))
    return path


def csv_files(root: Path, group: str | None = None) -> list[Path]:
    """The CSV files of one data group, or of the whole package, in a stable order."""
    if group is None:
        return sorted(path for path in root.rglob("*.csv") if path.is_file())
    return sorted((root / group).glob("*.csv"))


def group_of(root: Path, path: Path) -> str:
    """``FI/FI_TEXT`` for ``FI/FI_TEXT/fiText_G_….csv``; ``CONCORDANCE`` for top-level dirs."""
    return path.parent.relative_to(root).as_posix()


def require(paths: list[Path], what: str) -> list[Path]:
    """Refuse an edit that changed nothing: the variant would silently test nothing."""
    if not paths:
        raise ValueError(f"variant found nothing to change: {what}")
    return paths


def edit_rows(
    root: Path, groups: Iterable[str | None], edit: Callable[[list[list[str]]], bool]
) -> list[Path]:
    """Apply ``edit`` (True when it changed something) to the records of every file."""
    changed: list[Path] = []
    for group in groups:
        for path in csv_files(root, group):
            table = read_csv(path)
            if edit(table.rows):
                changed.append(write_csv(path, table))
    return changed


def edit_cells(root: Path, group: str, column: int, respell: Callable[[str], str]) -> list[Path]:
    """Respell the code cells of one column of a group (a writer's own code notation)."""

    def edit(rows: list[list[str]]) -> bool:
        before = [row[column] for row in rows]
        for row in rows:
            row[column] = respell(row[column])
        return before != [row[column] for row in rows]

    return require(edit_rows(root, [group], edit), f"code cells of {group}")


# ---------------------------------------------------------------- code spellings


def _group_parts(cell: str) -> tuple[str, str, str, str, str] | None:
    """(subclass, main group, subgroup, development code, file symbol) of a fixed-width group
    code (IPC 15 characters, FI 19), or None for sections to subclasses and facets."""
    if len(cell) not in (15, 19) or cell[8] != "/":
        return None
    return cell[:4], cell[4:8].strip(), cell[9:15].strip(), cell[15:18].strip(), cell[18:].strip()


def compact(cell: str) -> str:
    """The J-PlatPat spelling without padding: ``G06F3/048``, ``B60J5/00,501@B``, ``4C083``."""
    parts = _group_parts(cell)
    if parts is None:
        return cell.strip()
    head, main, sub, development, symbol = parts
    return (
        f"{head}{main}/{sub}"
        + (f",{development}" if development else "")
        + (f"@{symbol}" if symbol else "")
    )


def _respell_groups(spell: Callable[[str, str, str], str]) -> Callable[[str], str]:
    """A cell edit that respells IPC group cells from (subclass, main group, subgroup) and
    leaves every other row (sections to subclasses, facets) as it is."""

    def respell(cell: str) -> str:
        parts = _group_parts(cell)
        return cell if parts is None else spell(*parts[:3])

    respell.__doc__ = spell.__doc__
    return respell


@_respell_groups
def wipo(head: str, main: str, sub: str) -> str:
    """The WIPO 14-character symbol of an IPC group (``G06F0003048000``); other rows as is."""
    return f"{head}{main:0>4}{sub:0<6}"


@_respell_groups
def left_aligned(head: str, main: str, sub: str) -> str:
    """An IPC group with its subgroup left-aligned in the same 6 characters (``3/048   ``)."""
    return f"{head}{main:>4}/{sub:<6}"


def trailing_zero(cell: str) -> str:
    """``G06F   3/    05`` → ``G06F   3/   050``: subgroups written with at least three digits.

    A writer padding subgroups to three digits adds a redundant trailing zero to the
    two-digit ones only; main groups (``/00``) keep theirs (``/000`` would read as another
    kind). Same fixed width, and no two codes end up with one spelling.
    """
    parts = _group_parts(cell)
    if parts is None or parts[2] == "00" or len(parts[2]) != 2:
        return cell
    head, main, sub, _, _ = parts
    return f"{head}{main:>4}/{sub + '0':>6}"


FULL_WIDTH: Final = {code: code + 0xFEE0 for code in range(0x21, 0x7F)} | {0x20: 0x3000}
"""ASCII → full-width forms (NFKC maps every one of them back), space → ideographic space."""


def full_width(cell: str) -> str:
    """The code as a writer converting everything to 全角 would spell it, same width."""
    return cell.translate(FULL_WIDTH)


# ---------------------------------------------------------------- whole-package CSV edits


def rewrite_all(
    root: Path, *, quoting: Quoting = csv.QUOTE_MINIMAL, line_end: str = CRLF
) -> list[Path]:
    """Re-serialise every CSV with other writer settings (quoting, line ends)."""
    changed = []
    for path in csv_files(root):
        before = path.read_bytes()
        write_csv(path, read_csv(path), quoting=quoting, line_end=line_end)
        if path.read_bytes() != before:
            changed.append(path)
    return require(changed, "CSV serialisation")


def set_bom(root: Path, present: bool) -> list[Path]:
    """Add or remove the UTF-8 BOM of every CSV file."""
    changed = []
    for path in csv_files(root):
        data = path.read_bytes()
        has = data.startswith(BOM.encode())
        if has != present:
            path.write_bytes(BOM.encode() + data if present else data[len(BOM.encode()) :])
            changed.append(path)
    return require(changed, "BOM")


def edit_bytes(root: Path, edit: Callable[[bytes], bytes]) -> list[Path]:
    """Apply a byte-level edit to every CSV file (final line ends)."""
    changed = []
    for path in csv_files(root):
        data = path.read_bytes()
        if (new := edit(data)) != data:
            path.write_bytes(new)
            changed.append(path)
    return require(changed, "CSV bytes")


def add_header_rows(root: Path, english: bool) -> list[Path]:
    """A header row of column names on top of every CSV file, in the group's own words."""

    changed = []
    for path in csv_files(root):
        table = read_csv(path)
        header = list(header_words(group_of(root, path), english=english))
        widths = Counter(len(row) for row in table.rows).most_common(1)
        quirks = path.parent.name in {"FTERM_E", "FI_KAISEI_LINK"}  # unquoted-comma rows
        if widths and widths[0][0] != len(header) and not quirks:
            raise ValueError(f"{path.name}: {len(header)} header words for {widths[0][0]} columns")
        table.rows.insert(0, header)
        changed.append(write_csv(path, table))
    return require(changed, "header rows")


def append_column(root: Path, group: str, value: str) -> list[Path]:
    """One more trailing cell on every record of a group (empty, or an update date)."""

    def edit(rows: list[list[str]]) -> bool:
        for row in rows:
            row.append(value)
        return bool(rows)

    return require(edit_rows(root, [group], edit), f"trailing column of {group}")


def encode_cp932(root: Path, group: str) -> list[Path]:
    """A group written by a Windows tool: Shift_JIS (CP932), no BOM. Strict: a character
    CP932 cannot hold is a generator bug, not something to replace silently."""
    changed = []
    for path in csv_files(root, group):
        table = read_csv(path)
        table.bom = False
        changed.append(write_csv(path, table, encoding="cp932"))
    return require(changed, f"CP932 files of {group}")


def crlf_in_text(root: Path) -> list[Path]:
    """Multi-line text cells with CRLF inside the quotes, as Excel-made CSV has them."""

    def edit(rows: list[list[str]]) -> bool:
        hit = False
        for row in rows:
            if "\n" in row[-1]:
                row[-1] = row[-1].replace("\n", CRLF)
                hit = True
        return hit

    groups = ["FI/FI_HB", "FI/FI_HB_E", "FTERM/FTERM_KAISETSU", "FTERM/FTERM_KAISETSU_E"]
    return require(edit_rows(root, groups, edit), "multi-line text cells")


def quote_commas(root: Path) -> list[Path]:
    """The label commas the real release leaves unquoted, quoted properly (one cell each).

    Columns per the format: ``FTERM_E`` has four fixed cells (three leading, the FI coverage
    last), ``FI_KAISEI_LINK`` a code and one description.
    """

    def fterm(rows: list[list[str]]) -> bool:
        hit = False
        for index, row in enumerate(rows):
            if len(row) > 5:
                rows[index] = [*row[:3], ",".join(row[3:-1]), row[-1]]
                hit = True
        return hit

    def link(rows: list[list[str]]) -> bool:
        hit = False
        for index, row in enumerate(rows):
            if len(row) > 2:
                rows[index] = [row[0], ",".join(row[1:])]
                hit = True
        return hit

    changed = edit_rows(root, ["FTERM/FTERM_E"], fterm)
    return require(changed + edit_rows(root, ["FI/FI_KAISEI_LINK"], link), "unquoted commas")


def section_z(root: Path) -> list[Path]:
    """A bare ``Z`` section row heading the broad-facet file, as ``A`` … ``H`` head theirs."""
    paths = require(sorted((root / "FI/FI").glob("fi_Z_*.csv")), "FI/FI fi_Z file")
    table = read_csv(paths[0])
    for row in table.rows:
        row[1] = str(int(row[1]) + 1)
    table.rows.insert(0, ["Z".ljust(19), "1", "0", "0", "01"])
    return [write_csv(paths[0], table)]


def mixed_concordance(root: Path) -> list[Path]:
    """IPC 4 → 8 and IPC 7 → 8 rows of section G moved into ``con_FItoIPC8U_G_…``.

    Markers are data: the file name only hints at what a file holds. Each source file keeps
    one row (an empty file is another variant); no row is copied twice.
    """
    directory = root / "CONCORDANCE"
    target = require(sorted(directory.glob("con_FItoIPC8U_G_*.csv")), "FI→IPC8 G file")[0]
    table = read_csv(target)
    changed = [target]
    for pattern, top in (("con_IPC4toIPC8U_ALL_*.csv", True), ("con_IPC7toIPC8U_G_*.csv", False)):
        source = require(sorted(directory.glob(pattern)), pattern)[0]
        rows = read_csv(source)
        moving = [row for row in rows.rows[1:] if row[1].startswith("G")]
        if not moving:
            raise ValueError(f"{source.name}: no section G rows to move")
        rows.rows = [row for index, row in enumerate(rows.rows) if index == 0 or row not in moving]
        table.rows = moving + table.rows if top else table.rows + moving
        changed.append(write_csv(source, rows))
    write_csv(target, table)
    return changed


# ---------------------------------------------------------------- names and layout


def _rename(path: Path, name: str) -> Path:
    new = path.with_name(name)
    path.rename(new)
    return new


def upper_extensions(root: Path) -> list[Path]:
    """``.CSV``, ``.HTML``, ``.XML``, ``.PDF``, ``.XSL``, ``.TXT``: a DOS-era naming tool."""
    files = [path for path in sorted(root.rglob("*")) if path.is_file() and path.suffix]
    return require(
        [_rename(path, path.stem + path.suffix.upper()) for path in files], "file extensions"
    )


def upper_prefixes(root: Path) -> list[Path]:
    """``FI_G_20260331.csv``, ``FITEXT_G_…``, ``CON_FITOIPC8U_G_…``: names upper-cased."""
    return require(
        [_rename(path, path.stem.upper() + path.suffix) for path in csv_files(root)],
        "CSV file names",
    )


def lower_directories(root: Path) -> list[Path]:
    """``fi/fi_text``, ``ipc_kaisei``: every directory below the release in lower case, as
    a packaging tool on a case-insensitive file system may leave them."""
    directories = sorted(
        (path for path in root.rglob("*") if path.is_dir()), key=lambda p: -len(p.parts)
    )
    require(
        [
            _rename(path, path.name.lower())
            for path in directories
            if path.name.lower() != path.name
        ],
        "directory names",
    )
    return sorted(path for path in root.rglob("*") if path.is_file())


def unknown_directory(root: Path) -> list[Path]:
    """A ``README`` directory with a readme beside the data groups."""
    path = root / "README" / "readme.txt"
    path.parent.mkdir()
    path.write_bytes("パテントマップガイダンス一括ダウンロードデータの説明\r\n".encode())
    return [path]


def drop_group(root: Path, group: str) -> list[Path]:
    """Remove one optional data group entirely (returns the removed files)."""
    files = require(sorted(p for p in (root / group).rglob("*") if p.is_file()), group)
    shutil.rmtree(root / group)
    return files
