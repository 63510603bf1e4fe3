"""The reader of `pmgs check`'s input: formulas, lines and CSV columns, against hand tables.

Every occurrence (text, line, column, offset, tag, code part) and every error (code, message
with its position, details) below is worked out by hand from the grammar in the module's
docstring, so the file checks ``check/_formula.py`` without a database and in a second: it is
the mutation session's ``formula`` target (issue 34). The end-to-end checks against built
releases stay in ``test_check_diff.py``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pmgs_core import PMGSQueryError
from pmgs_core.check import MAX_INPUT_CHARS, read_occurrences
from pmgs_core.check._formula import Occurrence, code_text, schemes_of

Oc = Occurrence


def _read(text: str, **kwargs: Any) -> tuple[str, list[Occurrence]]:
    kwargs.setdefault("limit", 100)
    return read_occurrences(text, **kwargs)


def _refused(text: str, **kwargs: Any) -> PMGSQueryError:
    with pytest.raises(PMGSQueryError) as caught:
        _read(text, **kwargs)
    return caught.value


# -- formulas ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (
            "G06F3/048/FI+5H322AA09/FT",
            [
                Oc("G06F3/048/FI", 1, 1, 0, "FI", "G06F3/048"),
                Oc("5H322AA09/FT", 1, 14, 13, "FT", "5H322AA09"),
            ],
        ),
        (
            "[A61K8/00/ip * (B60J1/00 - b60j5/00/fi)]\n+ 5H322/AA09",
            [
                Oc("A61K8/00/ip", 1, 2, 1, "IP", "A61K8/00"),
                Oc("B60J1/00", 1, 17, 16, None, "B60J1/00"),
                Oc("b60j5/00/fi", 1, 28, 27, "FI", "b60j5/00"),
                Oc("5H322/AA09", 2, 3, 43, None, "5H322/AA09"),
            ],
        ),
        # a viewpoint written under its theme is not a tag
        ("(5H322/AA)", [Oc("5H322/AA", 1, 2, 1, None, "5H322/AA")]),
        # ' - ' with spaces makes a formula; a tagged code followed by more on its line too
        (
            "A01B1/00 - B01B1/00",
            [
                Oc("A01B1/00", 1, 1, 0, None, "A01B1/00"),
                Oc("B01B1/00", 1, 12, 11, None, "B01B1/00"),
            ],
        ),
        (
            "A01B1/00/FI\t*\tB01B1/00",
            [
                Oc("A01B1/00/FI", 1, 1, 0, "FI", "A01B1/00"),
                Oc("B01B1/00", 1, 15, 14, None, "B01B1/00"),
            ],
        ),
        ("\ufeff(A01B1/00)", [Oc("A01B1/00", 1, 2, 1, None, "A01B1/00")]),
        (
            "\n(A01B1/00)\n+B",
            [Oc("A01B1/00", 2, 2, 2, None, "A01B1/00"), Oc("B", 3, 2, 13, None, "B")],
        ),
    ],
)
def test_formula_occurrences(text: str, found: list[Occurrence]) -> None:
    assert _read(text) == ("formula", found)


@pytest.mark.parametrize(
    ("text", "message", "reason", "line", "column", "offset"),
    [
        (
            "A01B1/00 B01B1/00 + C",
            "an operator (+, * or -) is missing between two codes",
            "FORMULA_SYNTAX",
            1,
            10,
            9,
        ),
        (
            "A01B1/00/FI  B60J1/00",
            "an operator (+, * or -) is missing between two codes",
            "FORMULA_SYNTAX",
            1,
            14,
            13,
        ),
        ("A01B1/00 +", "the formula ends with an operator", "FORMULA_SYNTAX", 1, 11, 10),
        ("A01B1/00 +\n", "the formula ends with an operator", "FORMULA_SYNTAX", 2, 1, 11),
        ("+A01B1/00", "a code is missing before '+'", "FORMULA_SYNTAX", 1, 1, 0),
        ("A01B1/00 + * B", "a code is missing before '*'", "FORMULA_SYNTAX", 1, 12, 11),
        ("A01B1/00 * - B", "a code is missing before '-'", "FORMULA_SYNTAX", 1, 12, 11),
        ("(A01B1/00", "'(' is never closed", "FORMULA_SYNTAX", 1, 1, 0),
        ("[(A01B1/00)", "'[' is never closed", "FORMULA_SYNTAX", 1, 1, 0),
        ("A01B1/00 +\n\n(B01B1/00", "'(' is never closed", "FORMULA_SYNTAX", 3, 1, 12),
        ("(", "'(' is never closed", "FORMULA_SYNTAX", 1, 1, 0),
        # positions count only the lines before the error, from the very first character
        ("(A01B1/00\n\n", "'(' is never closed", "FORMULA_SYNTAX", 1, 1, 0),
        ("\nA01B1/00 +", "the formula ends with an operator", "FORMULA_SYNTAX", 2, 11, 11),
        (
            "\n(A01B1/00 B)\n",
            "an operator (+, * or -) is missing between two codes",
            "FORMULA_SYNTAX",
            2,
            11,
            11,
        ),
        ("A01B1/00)", "')' closes no open bracket", "FORMULA_SYNTAX", 1, 9, 8),
        ("[A01B1/00)", "')' closes no open bracket", "FORMULA_SYNTAX", 1, 10, 9),
        ("A01B1/00 + (B01B1/00]", "']' closes no open bracket", "FORMULA_SYNTAX", 1, 21, 20),
        ("()", "a code is missing before ')'", "FORMULA_SYNTAX", 1, 2, 1),
        ("[]", "a code is missing before ']'", "FORMULA_SYNTAX", 1, 2, 1),
        ("A01B1/00 (B01B1/00)", "an operator is missing before '('", "FORMULA_SYNTAX", 1, 10, 9),
        ("A01B1/00 [B01B1/00]", "an operator is missing before '['", "FORMULA_SYNTAX", 1, 10, 9),
        ("A01B1/00 * /FI", "a tag without a code", "FORMULA_SYNTAX", 1, 12, 11),
        ("A01B1/00/XX + B", "unknown tag /XX; use /FI, /FT or /IP", "FORMULA_UNKNOWN_TAG", 1, 9, 8),
        ("B +\n 5H322/aa", "unknown tag /aa; use /FI, /FT or /IP", "FORMULA_UNKNOWN_TAG", 2, 7, 10),
        ("B + 5H32/AA", "unknown tag /AA; use /FI, /FT or /IP", "FORMULA_UNKNOWN_TAG", 1, 9, 8),
        ("B + 5H322/AAA", "unknown tag /AAA; use /FI, /FT or /IP", "FORMULA_UNKNOWN_TAG", 1, 10, 9),
    ],
)
def test_formula_errors(
    text: str, message: str, reason: str, line: int, column: int, offset: int
) -> None:
    error = _refused(text)
    assert error.code == "INVALID_QUERY"
    assert error.message == f"{message} at line {line}, column {column}"
    assert error.details == {"reason": reason, "line": line, "column": column, "offset": offset}


def test_a_formula_of_more_codes_than_the_limit() -> None:
    assert [o.body for o in _read("A+B+C", limit=3)[1]] == ["A", "B", "C"]
    error = _refused("A+B+C", limit=2)
    assert error.code == "TOO_MANY_ITEMS"
    assert error.message == "more than 2 codes; check them in parts of at most 2"
    assert error.details == {"max_codes": 2}


# -- lines ------------------------------------------------------------------------------------


def test_one_code_a_line() -> None:
    text = "  G06F3/048 \r\n\n5H322AA09/ft\n\t A01B1/00-B01B1/00"
    assert _read(text) == (
        "lines",
        [
            Oc("G06F3/048", 1, 3, 2, None, "G06F3/048"),
            Oc("5H322AA09/ft", 3, 1, 15, "FT", "5H322AA09"),
            Oc("A01B1/00-B01B1/00", 4, 3, 30, None, "A01B1/00-B01B1/00"),
        ],
    )
    assert _read("\ufeffA01B1/00") == ("lines", [Oc("A01B1/00", 1, 1, 0, None, "A01B1/00")])


def test_the_kind_can_be_forced() -> None:
    assert _read("A+B", kind="lines") == ("lines", [Oc("A+B", 1, 1, 0, None, "A+B")])
    assert _read("A01B1/00", kind="formula") == (
        "formula",
        [Oc("A01B1/00", 1, 1, 0, None, "A01B1/00")],
    )
    # without a hint the same text is a list of lines
    assert _read("A01B1/00")[0] == "lines"


def test_lines_limit() -> None:
    assert len(_read("A\nB\nC", limit=3)[1]) == 3
    error = _refused("A\nB\nC", limit=2)
    assert (error.code, error.details) == ("TOO_MANY_ITEMS", {"max_codes": 2})


@pytest.mark.parametrize("text", ["", "  \n\t\n", "\ufeff"])
def test_no_code_at_all(text: str) -> None:
    error = _refused(text)
    assert error.code == "INVALID_QUERY"
    assert error.message == "the input holds no code"
    assert error.details == {"reason": "NO_CODES"}


def test_the_input_size_limit() -> None:
    assert MAX_INPUT_CHARS == 2_000_000
    assert _read("A" * 2_000_000)[1][0].line == 1
    error = _refused("A" * 2_000_001)
    assert error.code == "INVALID_QUERY"
    assert error.message == "the input is longer than 2,000,000 characters"
    assert error.details == {"reason": "INPUT_TOO_LARGE", "max_chars": 2_000_000}


# -- CSV --------------------------------------------------------------------------------------

_CSV = 'code, name \nG06F3/048/FI, x\n,empty\n 5H322AA09 \nshort\n"B60J1/00,800",quoted\n'


def test_csv_column_by_header_name() -> None:
    assert _read(_CSV, column="code") == (
        "csv",
        [
            Oc("G06F3/048/FI", 2, 1, -1, "FI", "G06F3/048"),
            Oc("5H322AA09", 4, 1, -1, None, "5H322AA09"),
            Oc("short", 5, 1, -1, None, "short"),
            Oc("B60J1/00,800", 6, 1, -1, None, "B60J1/00,800"),
        ],
    )
    # header cells are compared stripped
    assert [o.text for o in _read(_CSV, column="name", kind="csv")[1]] == [
        "x",
        "empty",
        "quoted",
    ]


def test_a_quoted_csv_cell_keeps_its_line_break() -> None:
    assert _read('code\r\n"x\r\ny"\r\n', column="code") == (
        "csv",
        [Oc("x\r\ny", 2, 1, -1, None, "x\r\ny")],
    )


def test_a_csv_with_cr_line_ends_is_read_by_rows() -> None:
    assert _read("code\rx\ry\r", column="code") == (
        "csv",
        [Oc("x", 2, 1, -1, None, "x"), Oc("y", 3, 1, -1, None, "y")],
    )


def test_csv_column_by_number_reads_the_header_row_too() -> None:
    assert _read(_CSV, column="2") == (
        "csv",
        [
            Oc("name", 1, 2, -1, None, "name"),
            Oc("x", 2, 2, -1, None, "x"),
            Oc("empty", 3, 2, -1, None, "empty"),
            Oc("quoted", 6, 2, -1, None, "quoted"),
        ],
    )


@pytest.mark.parametrize(
    ("text", "column", "header"),
    [
        (_CSV, "0", ["code", "name"]),
        (_CSV, "codes", ["code", "name"]),
        ("", "code", []),
        (",".join(f"c{n}" for n in range(60)) + "\n", "x", [f"c{n}" for n in range(50)]),
    ],
)
def test_csv_column_not_found(text: str, column: str, header: list[str]) -> None:
    error = _refused(text, column=column)
    assert error.code == "INVALID_ARGUMENT"
    assert error.message == (
        "the CSV column is neither a 1-based number nor a name in the header row"
    )
    assert error.details == {"reason": "CSV_COLUMN_NOT_FOUND", "header": header}


def test_csv_needs_a_column() -> None:
    error = _refused(_CSV, kind="csv")
    assert (error.code, error.message, error.details) == (
        "INVALID_ARGUMENT",
        "a CSV input needs a column",
        {},
    )


def test_csv_limit_and_unknown_tag() -> None:
    assert len(_read("A\nB\nC", column="1", limit=3)[1]) == 3
    error = _refused("A\nB\nC", column="1", limit=2)
    assert (error.code, error.details) == ("TOO_MANY_ITEMS", {"max_codes": 2})
    # a cell's tag is read like a formula term's, its position within the cell
    error = _refused("A01B1/00/XX\n", column="1")
    assert error.message == "unknown tag /XX; use /FI, /FT or /IP at line 1, column 9"
    assert error.details["reason"] == "FORMULA_UNKNOWN_TAG"


# -- the scheme of an untagged code, and its text -----------------------------------------------


@pytest.mark.parametrize(
    ("body", "schemes"),
    [
        ("5H322/AA09", ["fterm"]),
        ("5H322/AA", ["fterm"]),
        ("5H322AA09", ["fterm"]),
        ("5H322", ["fterm"]),
        ("G06F3/048", ["fi", "ipc"]),
        ("G06F", ["fi", "ipc"]),
        ("A61K103:00", ["ipc"]),
        ("G06F3/048,ZAB", []),
        ("zzz", ["fi"]),  # three letters are an FI facet's shape
        ("5H32", []),
    ],
)
def test_schemes_of(body: str, schemes: list[str]) -> None:
    assert schemes_of(body) == schemes


@pytest.mark.parametrize(
    ("body", "text"),
    [("5H322/AA09", "5H322AA09"), ("5H322/AA", "5H322AA"), ("G06F3/048", "G06F3/048")],
)
def test_code_text(body: str, text: str) -> None:
    assert code_text(body) == text


# -- full-width and IME input ------------------------------------------------------------------

_TWINS = [
    ("Ｇ０６Ｆ３／０４８／ＦＩ＋５Ｈ３２２ＡＡ０９／ＦＴ", "G06F3/048/FI+5H322AA09/FT"),
    (
        "［Ａ６１Ｋ８／００／ＩＰ　＊　（Ｂ６０Ｊ１／００　－　Ｂ６０Ｊ５／００／ＦＩ）］",
        "[A61K8/00/IP * (B60J1/00 - B60J5/00/FI)]",
    ),
    # ASCII codes with the tag and operator typed in the IME's width
    ("G06F3/048／ＦＩ＋5H322/AA09", "G06F3/048/FI+5H322/AA09"),
    ("G06F3/048/FI　＋　H01M10/052/IP", "G06F3/048/FI + H01M10/052/IP"),
    ("ｇ０６ｆ３／０４８／ｆｉ＊ｈ０１ｍ１０／０５２", "g06f3/048/fi*h01m10/052"),
    ("B60J5/00，501＠B／FI－G06F3/048／IP", "B60J5/00,501@B/FI-G06F3/048/IP"),
    ("Ｇ０６Ｆ　３／０４８\n５Ｈ３２２ＡＡ０９\n", "G06F 3/048\n5H322AA09\n"),
]


@pytest.mark.parametrize(("typed", "twin"), _TWINS)
def test_full_width_reads_like_its_ascii_twin(typed: str, twin: str) -> None:
    assert len(typed) == len(twin)  # the table pairs character for character
    kind, found = _read(typed)
    assert (kind, [replace(o, text=twin[o.offset : o.offset + len(o.text)]) for o in found]) == (
        _read(twin)
    )
    assert all(o.text == typed[o.offset : o.offset + len(o.text)] for o in found)


@pytest.mark.parametrize(
    ("typed", "twin"),
    [
        (
            "Ｇ０６Ｆ３／０４８／ＦＩ　＋　（Ｇ０６Ｆ３／０４８２／ＦＩ",
            "G06F3/048/FI + (G06F3/0482/FI",
        ),
        ("Ｇ０６Ｆ３／０４８／ＦＩ　Ｇ０６Ｆ３／０４８２／ＦＩ", "G06F3/048/FI G06F3/0482/FI"),
        ("Ｇ０６Ｆ３／０４８／ＴＸ", "G06F3/048/TX"),
        ("Ｇ０６Ｆ３／０４８\n＋＋Ｈ０１Ｍ", "G06F3/048\n++H01M"),
    ],
)
def test_full_width_errors_point_where_the_ascii_twin_does(typed: str, twin: str) -> None:
    assert len(typed) == len(twin)
    error, expected = _refused(typed), _refused(twin)
    assert (error.code, error.details) == (expected.code, expected.details)


def test_a_character_nfkc_expands_is_not_read_as_brackets() -> None:
    # ⑴ is "(1)" under NFKC: brackets nobody typed; it stays one (invalid) character
    _, found = _read("G06F3/048/FI + ⑴/FI")
    assert [o.text for o in found] == ["G06F3/048/FI", "⑴/FI"]


def test_a_csv_cell_keeps_its_full_width_comma() -> None:
    _, found = _read("code\nＢ６０Ｊ５／００，５０１＠Ｂ／ＦＩ\n", column="code")
    assert found == [Oc("Ｂ６０Ｊ５／００，５０１＠Ｂ／ＦＩ", 2, 1, -1, "FI", "B60J5/00,501@B")]


_WIDE = {chr(code): chr(code + 0xFEE0) for code in range(0x21, 0x7F)} | {" ": "\u3000"}


@given(
    st.sampled_from([twin for _, twin in _TWINS]),
    st.lists(st.booleans(), min_size=60, max_size=60),
)
def test_any_mix_of_widths_reads_like_ascii(twin: str, widen: list[bool]) -> None:
    typed = "".join(
        _WIDE.get(char, char) if widen[index % 60] else char for index, char in enumerate(twin)
    )
    kind, found = _read(typed)
    assert (kind, [replace(o, text=twin[o.offset : o.offset + len(o.text)]) for o in found]) == (
        _read(twin)
    )
