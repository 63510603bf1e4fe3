"""``check --column`` on a CSV (issue 41): a column number past the widest row is "no such
column" (``CSV_COLUMN_NOT_FOUND`` with the width), not "holds no code"; a numbered column
does not read a header cell (no digit: no code has none) as a code, while a first row that
could be a mistyped code is still read. Oracle: hand-written CSVs and their cells."""

from __future__ import annotations

import pytest

from pmgs_core import PMGSQueryError
from pmgs_core.check._formula import read_occurrences

THREE = "番号,FI,題名\n1,G06F3/048,入力\n2,H01M10/052,電池\n"


@pytest.mark.parametrize("column", ["4", "9", "100"])
def test_a_column_past_the_widest_row_is_no_such_column(column: str) -> None:
    with pytest.raises(PMGSQueryError) as caught:
        read_occurrences(THREE, column=column, limit=100)
    error = caught.value
    assert error.code == "INVALID_ARGUMENT"
    assert error.details["reason"] == "CSV_COLUMN_NOT_FOUND"
    assert error.details["columns"] == 3
    assert "no column" in error.message


def test_the_widest_row_decides() -> None:
    text = "a,b\n1,2,G06F3/048\n"
    _, found = read_occurrences(text, column="3", limit=100)
    assert [(o.text, o.line, o.column) for o in found] == [("G06F3/048", 2, 3)]


def test_a_numbered_column_skips_its_header_cell() -> None:
    kind, found = read_occurrences(THREE, column="2", limit=100)
    assert kind == "csv"
    assert [(o.text, o.line, o.column) for o in found] == [
        ("G06F3/048", 2, 2),
        ("H01M10/052", 3, 2),
    ]


@pytest.mark.parametrize("first", ["G06F3/04B", "5H322AA9", "Ｇ０６Ｆ"])
def test_a_first_row_that_may_be_a_mistyped_code_is_read(first: str) -> None:
    _, found = read_occurrences(f"{first}\nG06F3/048\n", column="1", limit=100)
    assert [(o.text, o.line) for o in found] == [(first, 1), ("G06F3/048", 2)]


def test_a_single_row_is_never_a_header() -> None:
    _, found = read_occurrences("G06F3/048,x\n", column="1", limit=100)
    assert [(o.text, o.line) for o in found] == [("G06F3/048", 1)]
