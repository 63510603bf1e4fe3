"""How a CSV file that stops being readable is reported: the exact code, message, file and
logical row, written out by hand from the handmade package's files (issue 22: the CSV
reader's failure paths)."""

from __future__ import annotations

import csv
import io
import shutil
import sqlite3
from pathlib import Path

import pytest

from pmgs_build import BuildError, build_database

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"
FI_TEXT = "FI/FI_TEXT/fiText_B_20260331.csv"  # 9 records, well under one 8 KiB read
FI_HB = "FI/FI_HB/fiHB_B_20260331.csv"  # 3 records


def _package(tmp_path: Path) -> Path:
    root = tmp_path / "src" / "JPPM2026001"
    shutil.copytree(HANDMADE, root)
    return root


def _stored_warning(db: Path, code: str) -> tuple[str, str]:
    """The one stored build issue of ``code``: (message, file), read with SQL."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT i.message, f.path FROM build_issue i JOIN source_file f "
            "ON f.id = i.source_file_id WHERE i.code = ? AND i.severity = 'warning'",
            (code,),
        ).fetchall()
    [(message, path)] = rows
    return str(message), str(path)


def _only_issue(root: Path, tmp_path: Path, code: str) -> tuple[str, str | None, str | None]:
    with pytest.raises(BuildError) as raised:
        build_database(root, tmp_path / "out.sqlite", strict=True)
    [issue] = [i for i in raised.value.issues if i.code == code]
    return issue.message, issue.source_path, issue.locator


def test_bytes_that_are_neither_utf8_nor_cp932(tmp_path: Path) -> None:
    root = _package(tmp_path)
    path = root / FI_TEXT
    assert path.stat().st_size < 8192  # decoded in one read: the failure comes before record 1
    with path.open("ab") as handle:
        handle.write(b"B60 ,1,1,0,0,0,\xff\xfe\x80\n")  # 0xFF and 0x80: undefined in CP932
    message, source, locator = _only_issue(root, tmp_path, "CSV_ENCODING")
    assert message == "neither UTF-8 nor CP932 after record 0: invalid start byte"
    assert (source, locator) == (FI_TEXT, "row:1")


def test_an_unterminated_quote(tmp_path: Path) -> None:
    root = _package(tmp_path)
    with (root / FI_HB).open("a", encoding="utf-8", newline="") as handle:
        handle.write('B60J   ,3,1,0,"open\n')
    message, source, locator = _only_issue(root, tmp_path, "CSV_MALFORMED")
    # three whole records, then the fourth never closes its quote
    assert message == "CSV syntax error after record 3: unexpected end of data"
    assert (source, locator) == (FI_HB, "row:4")


def test_cp932_fallback_reads_each_record_once(tmp_path: Path) -> None:
    root = _package(tmp_path)
    path = root / FI_TEXT
    text = path.read_text("utf-8")
    path.write_bytes(text.replace("車両一般", "車両一般①").encode("cp932"))
    build_database(root, tmp_path / "out.sqlite")
    assert _stored_warning(tmp_path / "out.sqlite", "CSV_CP932_FALLBACK") == (
        "not UTF-8; read as CP932 (Shift_JIS as Japanese Windows writes it)",
        FI_TEXT,
    )
    with sqlite3.connect(tmp_path / "out.sqlite") as conn:
        rows = conn.execute(
            "SELECT t.locator, t.body FROM text t JOIN source_file f ON f.id = t.source_file_id "
            "WHERE f.path = ? ORDER BY t.id",
            (FI_TEXT,),
        ).fetchall()
    records = list(csv.reader(io.StringIO(text, newline="")))  # one quoted cell spans 2 lines
    assert [r[0] for r in rows] == [f"row:{n}" for n in range(1, len(records) + 1)]
    assert ("row:2", "車両一般①") in rows


def test_an_empty_file_is_a_warning(tmp_path: Path) -> None:
    root = _package(tmp_path)
    (root / FI_HB).write_bytes(b"")
    build_database(root, tmp_path / "out.sqlite")
    assert _stored_warning(tmp_path / "out.sqlite", "CSV_EMPTY") == ("file has no record", FI_HB)


def test_row_progress_is_reported_per_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every N records a file reports ``parse`` progress in rows (N = 50,000 in real builds;
    2 here, so that the handmade files cross it)."""
    from pmgs_build import ProgressEvent
    from pmgs_build.source.parsers import csv_reader

    monkeypatch.setattr(csv_reader, "_ROW_PROGRESS_EVERY", 2)
    events: list[ProgressEvent] = []
    build_database(_package(tmp_path), tmp_path / "out.sqlite", progress=events.append)
    rows = [
        (e.done, e.total, e.message)
        for e in events
        if e.phase == "parse" and e.unit == "rows" and e.data_group == "FI/FI_TEXT"
    ]
    text = (HANDMADE / FI_TEXT).read_text("utf-8")
    records = len(list(csv.reader(io.StringIO(text, newline=""))))  # 8: one cell spans 2 lines
    expected = [(n, None, "") for n in range(2, records + 1, 2)]
    assert rows == expected  # fiText_G holds 1 record: no event of its own


@pytest.mark.parametrize(
    ("fields", "is_header"),
    [
        (["コード", "名称"], True),  # column names: no digit anywhere
        (["FI", "level", "title"], True),
        (["B60J", "窓"], False),  # a code in the first cell: data, though no cell is a number
        (["B60J", "窓", "説明"], False),
        (["記号", "1", "題名"], False),  # a purely numeric cell (a sequence): data
        (["記号", " 12 ", "題名"], False),
        (["記号", "x1", "題名"], True),  # digits inside a word are not a number
    ],
)
def test_which_first_record_is_a_header(fields: list[str], is_header: bool) -> None:
    from pmgs_build.source.parsers.csv_reader import _is_header

    assert _is_header(fields) is is_header
