"""Damage one file of a generated package in a named way, to test the builder's fail-closed paths.

The builder must turn every malformed input into a recorded build issue (and, for errors,
leave no database). Hand-editing fixture files in each test would hide what is being tested,
so the damages are named here, each aimed at one rule of docs/pmgs-source-format.md or
docs/database.md, and applied to a copy the test owns.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Final

from pmgs_testkit._output import LINE_END

__all__ = ["CORRUPTION_KINDS", "DOCUMENT_CORRUPTION_KINDS", "corrupt"]

CORRUPTION_KINDS: Final[dict[str, str]] = {
    "wrong_column_count": (
        "error: the first record of the group's first file (default FI/FI) loses its last cell"
    ),
    "shift_jis": (
        "warning CSV_CP932_FALLBACK: the group's first file (default FI/FI_TEXT; must hold "
        "Japanese text) is re-encoded as Shift_JIS (CP932), so it is not valid UTF-8"
    ),
    "ipc_line_sequence_not_integer": (
        "error: IPC8U_TEXT first record's text line sequence (col 2) becomes '1a'"
    ),
    "ipc_line_sequence_not_positive": "error: the same cell becomes '0'",
    "ipc_several_valid": (
        "error: a second version of a currently valid IPC 8U code is appended, valid at the "
        "reference date as well (two valid revisions at once)"
    ),
    "fterm_e_unknown_code": (
        "error FTERM_TRANSLATION_UNKNOWN_CODE: an FTERM_E record names a term missing from FTERM"
    ),
    "fterm_e_sequence_mismatch": (
        "error FTERM_TRANSLATION_SEQUENCE_MISMATCH: an FTERM_E record's sequence differs"
    ),
    "fterm_e_depth_mismatch": (
        "warning FTERM_TRANSLATION_DEPTH_MISMATCH: one more FTERM_E depth difference"
    ),
    "theme_sequence_mismatch": (
        "warning THEME_TRANSLATION_SEQUENCE_MISMATCH: one more THEME_E sequence difference"
    ),
    "fi_text_unknown_code": (
        "error FI_TEXT_UNKNOWN_CODE: an FI_TEXT record names an FI code missing from FI/FI"
    ),
    "bad_fi_code": (
        "error: an FI/FI code cell with a letter inside its subgroup (04X8: no valid code)"
    ),
    "bad_theme_in_fi_theme": "error: an FI_THEME theme number that is not 3 digits",
    "bad_concordance_marker": "error: a CONCORDANCE record with scheme marker 9",
    "two_reference_dates": (
        "error: one FI/FI file is renamed to the next day, so the names carry two dates"
    ),
    "empty_copyright": "error: the COPYRGHT file is emptied",
}
"""Kinds accepted by :func:`corrupt`, with the issue a correct builder must record."""

DOCUMENT_CORRUPTION_KINDS: Final[dict[str, str]] = {
    "xml_external_entity": (
        "error: the FI revision XML G06F.xml (else the first one) gets a DOCTYPE declaring an "
        "external entity (SYSTEM file:///etc/passwd) that its first <title> uses; the parser "
        "must neither resolve the entity nor read the file"
    ),
    "xml_not_well_formed": (
        "error: the same XML loses the closing tag of its first </infor> (not well-formed); "
        "a recovering parser must not be used to read past it"
    ),
    "pdf_not_a_pdf": (
        "error: the first definition PDF is replaced by 4 KiB of random bytes (same name)"
    ),
    "pdf_truncated": (
        "error: the first definition PDF is cut to its first half (no xref, no trailer)"
    ),
    "pdf_encrypted": (
        "error: the first definition PDF's trailer gets a standard security handler (RC4,"
        " revision 2) whose password hashes match no password, so pdfium asks for one"
    ),
}
"""Kinds for the XML/HTML/PDF groups, accepted by :func:`corrupt` on packages written with
``with_documents=True``. Kept apart from :data:`CORRUPTION_KINDS` because those apply to
every package, while these need the document groups."""

_EXTERNAL_ENTITY_DOCTYPE: Final = b'<!DOCTYPE data [<!ENTITY x SYSTEM "file:///etc/passwd">]>'

_DEFAULT_GROUP: Final[dict[str, str]] = {
    "wrong_column_count": "FI/FI",
    "shift_jis": "FI/FI_TEXT",
}
_BOM: Final = "\ufeff"


def _first_file(package: Path, group: str) -> Path:
    files = sorted(p for p in (package / group).iterdir() if p.is_file())
    if not files:
        raise FileNotFoundError(f"no file in {package / group}")
    return files[0]


def _read(path: Path) -> tuple[bool, list[list[str]]]:
    text = path.read_text(encoding="utf-8")
    bom = text.startswith(_BOM)
    return bom, list(csv.reader(io.StringIO(text.removeprefix(_BOM), newline="")))


def _write(path: Path, bom: bool, rows: list[list[str]]) -> None:
    buffer = io.StringIO(newline="")
    csv.writer(buffer, lineterminator=LINE_END).writerows(rows)
    path.write_text((_BOM if bom else "") + buffer.getvalue(), encoding="utf-8", newline="")


Rows = list[list[str]]
Picker = Callable[[Rows], list[str]]


def _where(condition: Callable[[list[str]], bool]) -> Picker:
    """The first record meeting ``condition``."""
    return lambda rows: next(r for r in rows if condition(r))


_FIRST: Final = _where(lambda _: True)
_FTERM_TERM: Final = _where(lambda r: r[0].strip()[-2:] != "00")


def _last_theme(rows: Rows) -> list[str]:
    """The last theme row: the generator never gives it a mismatch of its own... unless it
    did, so the edit adds 1000 to make it differ whatever it was."""
    return next(r for r in reversed(rows) if len(r[0]) == 5)


_CELL_EDITS: Final[dict[str, tuple[str, Picker, int, Callable[[str], str]]]] = {
    "ipc_line_sequence_not_integer": ("IPC/IPC8U_TEXT", _FIRST, 2, lambda _: "1a"),
    "ipc_line_sequence_not_positive": ("IPC/IPC8U_TEXT", _FIRST, 2, lambda _: "0"),
    "fterm_e_unknown_code": (
        "FTERM/FTERM_E",
        _FTERM_TERM,
        0,
        lambda cell: (cell.strip()[:5] + "ZZ98").ljust(10),
    ),
    "fterm_e_sequence_mismatch": ("FTERM/FTERM_E", _FTERM_TERM, 1, lambda c: str(int(c) + 1000)),
    "fterm_e_depth_mismatch": ("FTERM/FTERM_E", _FTERM_TERM, 2, lambda c: str(int(c) + 2)),
    "theme_sequence_mismatch": ("FTERM/THEME_E", _last_theme, 1, lambda c: str(int(c) + 1000)),
    "fi_text_unknown_code": (
        "FI/FI_TEXT",
        _where(lambda r: len(r[0].strip()) > 4),
        0,
        lambda cell: cell[:4] + "8999/    00    ",
    ),
    "bad_fi_code": (
        "FI/FI",
        _where(lambda r: r[0][8:9] == "/"),
        0,
        lambda cell: cell[:9] + "  04X8    ",
    ),
    "bad_theme_in_fi_theme": ("FI/FI_THEME", _FIRST, 3, lambda _: "08X"),
    "bad_concordance_marker": ("CONCORDANCE", _FIRST, 0, lambda _: "9"),
}
"""Damages that change one cell of one record: (group, which record, column, new value)."""


def _edit_rows(package: Path, group: str, edit: Callable[[Rows], None]) -> Path:
    """Rewrite the records of the group's first file in place, keeping its BOM or none."""
    path = _first_file(package, group)
    bom, rows = _read(path)
    edit(rows)
    _write(path, bom, rows)
    return path


def _drop_last_cell(rows: Rows) -> None:
    rows[0] = rows[0][:-1]


def _several_valid(rows: Rows) -> None:
    row = next(r for r in rows if r[8] == "99991231")
    twin = list(row)
    twin[1] = "(2011.01)" if row[1] != "(2011.01)" else "(2012.01)"
    twin[7] = "20110101"
    rows.append(twin)


def corrupt(package_path: Path, kind: str, *, group: str | None = None) -> Path:
    """Apply damage ``kind`` (a key of :data:`CORRUPTION_KINDS`) in place; return the file.

    ``package_path`` is the release directory (``GeneratedPackage.path``). ``group`` selects
    the data group for ``wrong_column_count`` and ``shift_jis`` (any CSV group, e.g.
    ``FTERM/FTERM_KAISETSU``), so a test can produce one malformed file per group. Work on a
    freshly generated package: the changes are not undone.
    """
    package = Path(package_path)
    if kind in DOCUMENT_CORRUPTION_KINDS:
        if group is not None:
            raise ValueError(f"corruption {kind!r} does not take a group")
        return _corrupt_document(package, kind)
    if kind not in CORRUPTION_KINDS:
        known = sorted([*CORRUPTION_KINDS, *DOCUMENT_CORRUPTION_KINDS])
        raise ValueError(f"unknown corruption kind {kind!r}; expected one of {known}")
    if group is not None and kind not in _DEFAULT_GROUP:
        raise ValueError(f"corruption {kind!r} does not take a group")
    target_group = group or _DEFAULT_GROUP.get(kind, "")
    if kind in _CELL_EDITS:
        cell_group, pick, column, value = _CELL_EDITS[kind]

        def edit_cell(rows: Rows) -> None:
            row = pick(rows)
            row[column] = value(row[column])

        return _edit_rows(package, cell_group, edit_cell)
    if kind == "wrong_column_count":
        return _edit_rows(package, target_group, _drop_last_cell)
    if kind == "ipc_several_valid":
        return _edit_rows(package, "IPC/IPC8U_TEXT", _several_valid)
    if kind == "shift_jis":
        path = _first_file(package, target_group)
        text = path.read_text(encoding="utf-8").removeprefix(_BOM)
        if text.isascii():
            raise ValueError(f"{target_group} holds no Japanese text; Shift_JIS would not differ")
        path.write_bytes(text.encode("cp932"))
        return path
    if kind == "two_reference_dates":
        path = _first_file(package, "FI/FI")
        stem, token = path.stem.rsplit("_", 1)
        day = datetime.strptime(token, "%Y%m%d").date() + timedelta(days=1)
        renamed = path.with_name(f"{stem}_{day:%Y%m%d}{path.suffix}")
        path.rename(renamed)
        return renamed
    # empty_copyright
    path = _first_file(package, "COPYRGHT")
    path.write_bytes(b"")
    return path


def _revision_xml(package: Path) -> Path:
    preferred = package / "FI" / "FI_KAISEI_DOC" / "G06F.xml"
    if preferred.is_file():
        return preferred
    files = sorted((package / "FI" / "FI_KAISEI_DOC").glob("*.xml"))
    if not files:
        raise FileNotFoundError("no FI revision XML: generate the package with_documents=True")
    return files[0]


def _corrupt_document(package: Path, kind: str) -> Path:
    """The XML and PDF damages of :data:`DOCUMENT_CORRUPTION_KINDS` (bytes-level, on purpose:
    the point is to hand the builder exactly what a hostile or broken file would contain)."""
    if kind in {"xml_external_entity", "xml_not_well_formed"}:
        path = _revision_xml(package)
        data = path.read_bytes()
        if kind == "xml_external_entity":
            declaration_end = data.index(b"?>") + 2
            data = (
                data[:declaration_end]
                + LINE_END.encode()
                + _EXTERNAL_ENTITY_DOCTYPE
                + data[declaration_end:]
            )
            start = data.index(b"<title>") + len(b"<title>")
            data = data[:start] + b"&x;" + data[start:]
        else:
            end = data.index(b"</infor>")
            data = data[:end] + data[end + len(b"</infor>") :]
        path.write_bytes(data)
        return path
    files = sorted((package / "REFERENCE" / "IPC_TEIGI").glob("*.pdf"))
    if not files:
        raise FileNotFoundError("no definition PDF: generate the package with_documents=True")
    path = files[0]
    if kind == "pdf_not_a_pdf":
        # Deterministic "random" bytes: a hash chain, never starting with %PDF.
        block = hashlib.sha256(path.name.encode()).digest()
        chunks = []
        for _ in range(128):
            block = hashlib.sha256(block).digest()
            chunks.append(block)
        path.write_bytes(b"\x00" + b"".join(chunks)[:4095])
        return path
    data = path.read_bytes()
    if kind == "pdf_encrypted":
        # Entries after the xref table: no offset moves. /O and /U are arbitrary bytes, so the
        # empty user password does not open the file (pdfium: FPDF_ERR_PASSWORD).
        encrypt = (
            b"/Encrypt << /Filter /Standard /V 1 /R 2 /P -4 /O <"
            + b"11" * 32
            + b"> /U <"
            + b"22" * 32
            + b"> >> /ID [<"
            + b"0f" * 16
            + b"> <"
            + b"0f" * 16
            + b">] "
        )
        at = data.rindex(b"trailer") + len(b"trailer")
        at = data.index(b"<<", at) + 2
        path.write_bytes(data[:at] + b" " + encrypt + data[at:])
        return path
    path.write_bytes(data[: len(data) // 2])
    return path
