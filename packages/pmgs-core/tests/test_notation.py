"""Tests of the code notations: every accepted spelling, every refusal, and round-trip laws."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pmgs_core.notation import (
    FI_FIXED_WIDTH,
    FTERM_FIXED_WIDTH,
    IPC_FIXED_WIDTH,
    ClassificationCode,
    InvalidCodeError,
    InvalidSchemeError,
    format_fixed_width,
    fterm_theme_code,
    ipc_code_from_pdf_name,
    normalize_code,
    parse_code,
    parse_ipc_version,
)

# --------------------------------------------------------------------------------------------
# Accepted notations
# --------------------------------------------------------------------------------------------

G06F3_048: dict[str, Any] = {
    "section": "G",
    "class_": "06",
    "subclass": "F",
    "main_group": "3",
    "subgroup": "048",
    "development_code": None,
    "file_symbol": None,
}

VALID: list[tuple[str, str, str, str, dict[str, Any]]] = [
    # scheme, input, canonical, kind, fields to check
    ("fi", "G", "G", "section", {"section": "G", "class_": None}),
    ("fi", "G06", "G06", "class", {"section": "G", "class_": "06", "subclass": None}),
    ("fi", "G06F", "G06F", "subclass", {"subclass": "F", "main_group": None}),
    ("fi", "G06F3/00", "G06F3/00", "main_group", {"main_group": "3", "subgroup": "00"}),
    ("fi", "G06F3/048", "G06F3/048", "subgroup", G06F3_048),
    ("fi", "G06F3/04", "G06F3/04", "subgroup", {"subgroup": "04"}),
    ("fi", "G06F 3/048", "G06F3/048", "subgroup", G06F3_048),
    ("fi", "G06F   3/  048", "G06F3/048", "subgroup", G06F3_048),
    ("fi", "G06F3 / 048", "G06F3/048", "subgroup", G06F3_048),
    ("fi", "  G06F3/048\t", "G06F3/048", "subgroup", G06F3_048),
    ("fi", "g06f3/048", "G06F3/048", "subgroup", G06F3_048),
    ("fi", "Ｇ０６Ｆ３／０４８", "G06F3/048", "subgroup", G06F3_048),
    ("fi", "ｇ０６ｆ　３／０４８", "G06F3/048", "subgroup", G06F3_048),
    ("fi", "G06F\u00a03/048", "G06F3/048", "subgroup", G06F3_048),
    ("fi", "G06F1234/56", "G06F1234/56", "subgroup", {"main_group": "1234"}),
    ("fi", "G06F 123/048", "G06F123/048", "subgroup", {"main_group": "123"}),
    ("fi", "H01L21/0234", "H01L21/0234", "subgroup", {"subgroup": "0234"}),
    ("fi", "A61B5/000001", "A61B5/000001", "subgroup", {"subgroup": "000001"}),
    (
        "fi",
        "B21B37/00,210",
        "B21B37/00,210",
        "main_group",
        {"main_group": "37", "subgroup": "00", "development_code": "210", "file_symbol": None},
    ),
    (
        "fi",
        "B21B1/00@A",
        "B21B1/00@A",
        "main_group",
        {"subgroup": "00", "development_code": None, "file_symbol": "A"},
    ),
    (
        "fi",
        "B60J5/00,501@B",
        "B60J5/00,501@B",
        "main_group",
        {"main_group": "5", "subgroup": "00", "development_code": "501", "file_symbol": "B"},
    ),
    ("fi", "B60J5/00 , 501 @ B", "B60J5/00,501@B", "main_group", {"file_symbol": "B"}),
    ("fi", "Ｂ６０Ｊ５／００，５０１＠Ｂ", "B60J5/00,501@B", "main_group", {"file_symbol": "B"}),
    ("fi", "b60j5/00,501@b", "B60J5/00,501@B", "main_group", {"file_symbol": "B"}),
    ("fi", "G06F3/048,101", "G06F3/048,101", "subgroup", {"development_code": "101"}),
    ("fi", "G06F 123/048,501 @ B", "G06F123/048,501@B", "subgroup", {"file_symbol": "B"}),
    # FI broad facets
    ("fi", "ZAA", "ZAA", "facet", {"facet": "ZAA", "section": None}),
    ("fi", "zit", "ZIT", "facet", {"facet": "ZIT"}),
    ("fi", "ＺＡＢ", "ZAB", "facet", {"facet": "ZAB"}),
    ("fi", "ZNA                ", "ZNA", "facet", {"facet": "ZNA"}),
    # Fixed width (FI package files), read by position
    ("fi", "G06F   3/   048    ", "G06F3/048", "subgroup", G06F3_048),
    (
        "fi",
        "B60J   5/    00501B",
        "B60J5/00,501@B",
        "main_group",
        {"subgroup": "00", "development_code": "501", "file_symbol": "B"},
    ),
    (
        "fi",
        "B21B  37/    00210 ",
        "B21B37/00,210",
        "main_group",
        {"subgroup": "00", "development_code": "210", "file_symbol": None},
    ),
    (
        "fi",
        "B21B  37/    00210",  # trailing space trimmed by a CSV tool
        "B21B37/00,210",
        "main_group",
        {"subgroup": "00", "development_code": "210", "file_symbol": None},
    ),
    (
        "fi",
        "B21B   1/    00   A",
        "B21B1/00@A",
        "main_group",
        {"subgroup": "00", "development_code": None, "file_symbol": "A"},
    ),
    ("fi", "G06F   3/   048", "G06F3/048", "subgroup", G06F3_048),
    ("fi", "G06F   3/   048   ", "G06F3/048", "subgroup", G06F3_048),
    ("fi", "G06F1234/000001    ", "G06F1234/000001", "subgroup", {"subgroup": "000001"}),
    ("fi", "G06F   3/   048101 ", "G06F3/048,101", "subgroup", {"development_code": "101"}),
    ("fi", "G06F               ", "G06F", "subclass", {"subclass": "F"}),
    ("fi", "G                  ", "G", "section", {"section": "G"}),
    # The row heading the broad-facet file, fixed width like the A..H rows
    ("fi", "Z                  ", "Z", "section", {"section": "Z", "class_": None}),
    ("fi", "z", "Z", "section", {"section": "Z"}),
    # Trailing zeros in a subgroup are a decimal fraction's: /050 is /05
    ("ipc", "G06F   3/050    ", "G06F3/05", "subgroup", {"subgroup": "05"}),
    ("ipc", "G06F3/050", "G06F3/05", "subgroup", {"subgroup": "05"}),
    ("ipc", "G06F   3/   050", "G06F3/05", "subgroup", {"subgroup": "05"}),
    ("fi", "G06F3/0480", "G06F3/048", "subgroup", G06F3_048),
    ("fi", "G06F3/048000", "G06F3/048", "subgroup", G06F3_048),
    ("ipc", "A61B5/000200", "A61B5/0002", "subgroup", {"subgroup": "0002"}),
    ("ipc", "G06F3/100", "G06F3/10", "subgroup", {"subgroup": "10"}),
    # Spaces where a fixed-width listing has the ',' and '@' separators
    ("fi", "B60T 8/44 501 B", "B60T8/44,501@B", "subgroup", {"development_code": "501"}),
    ("fi", "B60T8/44 501B", "B60T8/44,501@B", "subgroup", {"file_symbol": "B"}),
    ("fi", "B60T   8/44    501B", "B60T8/44,501@B", "subgroup", {"file_symbol": "B"}),
    ("fi", "B21B1/00 A", "B21B1/00@A", "main_group", {"development_code": None}),
    ("fi", "B21B37/00 210", "B21B37/00,210", "main_group", {"file_symbol": None}),
    ("fi", "Ｂ６０Ｔ　８／４４　５０１　Ｂ", "B60T8/44,501@B", "subgroup", {"file_symbol": "B"}),
    ("fi", "G06                ", "G06", "class", {"class_": "06"}),
    # WIPO 14-character form
    ("fi", "G06F0003048000", "G06F3/048", "subgroup", G06F3_048),
    ("ipc", "G06F0003048000", "G06F3/048", "subgroup", G06F3_048),
    ("ipc", "G06F0003000000", "G06F3/00", "main_group", {"subgroup": "00"}),
    ("ipc", "G06F0003100000", "G06F3/10", "subgroup", {"subgroup": "10"}),
    ("ipc", "G06F0003010000", "G06F3/01", "subgroup", {"subgroup": "01"}),
    ("ipc", "A61B0005000200", "A61B5/0002", "subgroup", {"subgroup": "0002"}),
    ("ipc", "C07D0521000000", "C07D521/00", "main_group", {"main_group": "521"}),
    ("ipc", "g06f0003048000", "G06F3/048", "subgroup", G06F3_048),
    # IPC hierarchy and versions
    ("ipc", "G", "G", "section", {"version": None}),
    ("ipc", "G06", "G06", "class", {}),
    ("ipc", "G06F", "G06F", "subclass", {}),
    ("ipc", "G06F3/048", "G06F3/048", "subgroup", {**G06F3_048, "version": None}),
    ("ipc", "G06F 3/048", "G06F3/048", "subgroup", G06F3_048),
    ("ipc", "G06F3/048 (2006.01)", "G06F3/048", "subgroup", {"version": "2006.01"}),
    ("ipc", "G06F3/048(2006.01)", "G06F3/048", "subgroup", {"version": "2006.01"}),
    ("ipc", "G06F3/048 2006.01", "G06F3/048", "subgroup", {"version": "2006.01"}),
    ("ipc", "G06F3/048 ( 2013.01 )", "G06F3/048", "subgroup", {"version": "2013.01"}),
    (
        "ipc",
        "Ｇ０６Ｆ３／０４８（２００６．０１）",
        "G06F3/048",
        "subgroup",
        {"version": "2006.01"},
    ),
    ("ipc", "G06F0003048000 (2006.01)", "G06F3/048", "subgroup", {"version": "2006.01"}),
    ("ipc", "G06F (2006.01)", "G06F", "subclass", {"version": "2006.01"}),
    ("ipc", "G06F   3/   048", "G06F3/048", "subgroup", G06F3_048),
    ("ipc", "G06F   3/   048    ", "G06F3/048", "subgroup", G06F3_048),
    ("ipc", "G06F   3/    00", "G06F3/00", "main_group", {"subgroup": "00"}),
    ("ipc", "G06F   3/   048 (2006.01)", "G06F3/048", "subgroup", {"version": "2006.01"}),
    ("ipc", "G06F           ", "G06F", "subclass", {}),
    # IPC indexing codes (editions 4 to 7): ':' in place of '/', a code of their own
    ("ipc", "A61K103:00", "A61K103:00", "main_group", {"main_group": "103", "indexing": True}),
    ("ipc", "A61K 103:00", "A61K103:00", "main_group", {"subgroup": "00", "indexing": True}),
    ("ipc", "Ａ６１Ｋ１０３：００", "A61K103:00", "main_group", {"indexing": True}),
    ("ipc", "ａ６１ｋ　１０３：００", "A61K103:00", "main_group", {"indexing": True}),
    ("ipc", "A61K 8:00", "A61K8:00", "main_group", {"main_group": "8", "indexing": True}),
    ("ipc", "A61K8 : 00", "A61K8:00", "main_group", {"indexing": True}),
    ("ipc", "a61k8:00", "A61K8:00", "main_group", {"indexing": True}),
    ("ipc", "C11D 1:04", "C11D1:04", "subgroup", {"subgroup": "04", "indexing": True}),
    ("ipc", "C11D1:040", "C11D1:04", "subgroup", {"subgroup": "04", "indexing": True}),
    ("ipc", "A61K 103:    00", "A61K103:00", "main_group", {"indexing": True}),
    ("ipc", "C11D   1:    04", "C11D1:04", "subgroup", {"indexing": True}),
    ("ipc", "C11D   1:04    ", "C11D1:04", "subgroup", {"indexing": True}),
    ("ipc", "A61K 103/00", "A61K103/00", "main_group", {"indexing": False}),
    # F-term
    ("fterm", "4C083", "4C083", "theme", {"theme": "4C083", "viewpoint": None, "number": None}),
    ("fterm", "4C083AA", "4C083AA", "viewpoint", {"theme": "4C083", "viewpoint": "AA"}),
    (
        "fterm",
        "4C083AA01",
        "4C083AA01",
        "term",
        {"theme": "4C083", "viewpoint": "AA", "number": "01"},
    ),
    # Number 00 is how F-term lists print a viewpoint heading: it is the viewpoint.
    ("fterm", "4C083AA00", "4C083AA", "viewpoint", {"viewpoint": "AA", "number": None}),
    ("fterm", "2D081AB00", "2D081AB", "viewpoint", {"theme": "2D081", "number": None}),
    ("fterm", "２Ｄ０８１ＡＢ００", "2D081AB", "viewpoint", {"number": None}),
    ("fterm", "4C083 AA01", "4C083AA01", "term", {"number": "01"}),
    ("fterm", "4C083 AA", "4C083AA", "viewpoint", {"viewpoint": "AA"}),
    ("fterm", "4c083aa01", "4C083AA01", "term", {"number": "01"}),
    ("fterm", "４Ｃ０８３ＡＡ０１", "4C083AA01", "term", {"number": "01"}),
    ("fterm", "４ｃ０８３　ａａ０１", "4C083AA01", "term", {"number": "01"}),
    ("fterm", "4C083AA01 ", "4C083AA01", "term", {"number": "01"}),
    ("fterm", "2B005     ", "2B005", "theme", {"theme": "2B005"}),
]


@pytest.mark.parametrize(("scheme", "text", "canonical", "kind", "fields"), VALID)
def test_parse_accepted_notations(
    scheme: str, text: str, canonical: str, kind: str, fields: dict[str, Any]
) -> None:
    code = parse_code(scheme, text)
    assert code.scheme == scheme
    assert code.canonical == canonical
    assert str(code) == canonical
    assert code.kind == kind
    for name, value in fields.items():
        assert getattr(code, name) == value, name
    assert normalize_code(scheme, text) == canonical
    # The canonical spelling is itself accepted and means the same code (minus the version).
    again = parse_code(scheme, canonical)
    assert again.canonical == canonical
    assert again.kind == kind


@pytest.mark.parametrize(
    ("scheme", "expected"),
    [
        ("fi", "fi"),
        ("FI", "fi"),
        ("Fi", "fi"),
        (" fi ", "fi"),
        ("ipc", "ipc"),
        ("IPC", "ipc"),
        ("fterm", "fterm"),
        ("FTERM", "fterm"),
        ("F-term", "fterm"),
        ("f-term", "fterm"),
        ("F_TERM", "fterm"),
        ("ＦＩ", "fi"),
    ],
)
def test_scheme_spellings(scheme: str, expected: str) -> None:
    text = "4C083" if expected == "fterm" else "G06F"
    assert parse_code(scheme, text).scheme == expected


@pytest.mark.parametrize(
    ("scheme", "text", "fixed"),
    [
        ("fi", "G06F3/048", "G06F   3/   048    "),
        ("fi", "B60J5/00,501@B", "B60J   5/    00501B"),
        ("fi", "B21B37/00,210", "B21B  37/    00210 "),
        ("fi", "B21B1/00@A", "B21B   1/    00   A"),
        ("fi", "G06F1234/000001", "G06F1234/000001    "),
        ("fi", "G06F", "G06F               "),
        ("fi", "G", "G                  "),
        ("fi", "G06", "G06                "),
        ("fi", "ZAA", "ZAA                "),
        ("ipc", "G06F3/048", "G06F   3/   048"),
        ("ipc", "G06F3/048 (2006.01)", "G06F   3/   048"),
        ("ipc", "G06F3/00", "G06F   3/    00"),
        ("ipc", "G06F", "G06F           "),
        ("fterm", "4C083", "4C083     "),
        ("fterm", "4C083AA", "4C083AA00 "),
        ("fterm", "4C083 AA01", "4C083AA01 "),
    ],
)
def test_fixed_width_output(scheme: str, text: str, fixed: str) -> None:
    assert format_fixed_width(scheme, text) == fixed
    assert parse_code(scheme, text).fixed_width() == fixed
    assert len(fixed) == {"fi": FI_FIXED_WIDTH, "ipc": IPC_FIXED_WIDTH}.get(
        scheme, FTERM_FIXED_WIDTH
    )
    assert normalize_code(scheme, fixed) == normalize_code(scheme, text)


@pytest.mark.parametrize(
    ("scheme", "text", "wipo"),
    [
        ("ipc", "G06F3/048", "G06F0003048000"),
        ("ipc", "G06F3/00", "G06F0003000000"),
        ("ipc", "G06F3/10", "G06F0003100000"),
        ("ipc", "C07D521/00", "C07D0521000000"),
        ("ipc", "A61B5/0002", "A61B0005000200"),
        ("ipc", "G06F1234/123456", "G06F1234123456"),
        ("fi", "B60J5/00,501@B", "B60J0005000000"),
        ("fi", "G06F3/048", "G06F0003048000"),
    ],
)
def test_wipo_symbol(scheme: str, text: str, wipo: str) -> None:
    code = parse_code(scheme, text)
    assert code.wipo_symbol() == wipo
    assert len(wipo) == 14
    back = parse_code("ipc", wipo)
    assert back.canonical == parse_code("ipc", text.split(",", maxsplit=1)[0]).canonical


@pytest.mark.parametrize(
    ("scheme", "text"),
    [("ipc", "G"), ("ipc", "G06"), ("ipc", "G06F"), ("fi", "ZAA"), ("fterm", "4C083AA01")],
)
def test_wipo_symbol_needs_a_group(scheme: str, text: str) -> None:
    with pytest.raises(InvalidCodeError, match="WIPO"):
        parse_code(scheme, text).wipo_symbol()


def test_ipc_class_property() -> None:
    assert parse_code("ipc", "G06F3/048").ipc_class == "G06"
    assert parse_code("fi", "G").ipc_class is None
    assert parse_code("fterm", "4C083").ipc_class is None


def test_version_is_kept_but_not_canonical() -> None:
    code = parse_code("ipc", "G06F3/048 (2006.01)")
    assert code.version == "2006.01"
    assert code.canonical == "G06F3/048"
    assert code != parse_code("ipc", "G06F3/048")


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("(2006.01)", "2006.01"),
        ("2006.01", "2006.01"),
        (" (2016.01) ", "2016.01"),
        ("( 2006.01 )", "2006.01"),
        ("（２００６．０１）", "2006.01"),
        ("２０２２．０１", "2022.01"),
        ("(1968.09)", "1968.09"),
    ],
)
def test_parse_ipc_version(text: str, version: str) -> None:
    assert parse_ipc_version(text) == version


@pytest.mark.parametrize(
    "text",
    ["", "2006", "2006.1", "(2006.01", "2006.01)", "2006.13", "2006.00", "1806.01", "20060101",
     "(2006.01)(2006.01)", "2006,01", "v2006.01", "x" * 100],
)  # fmt: skip
def test_parse_ipc_version_rejects(text: str) -> None:
    with pytest.raises(InvalidCodeError) as caught:
        parse_ipc_version(text)
    assert caught.value.code == "INVALID_CODE"
    assert "(2006.01)" in str(caught.value)


@pytest.mark.parametrize(
    ("group", "number", "theme"),
    [("4C", "083", "4C083"), ("2b", "005", "2B005"), (" 4C ", "083 ", "4C083"),
     ("４Ｃ", "０８３", "4C083")],
)  # fmt: skip
def test_fterm_theme_code(group: str, number: str, theme: str) -> None:
    assert fterm_theme_code(group, number) == theme
    assert parse_code("fterm", theme).kind == "theme"


@pytest.mark.parametrize(
    ("group", "number"),
    [("4C", "83"), ("4C", "0830"), ("C4", "083"), ("4", "C083"), ("", "083"), ("4C", ""),
     ("4C0", "83"), ("4C", "08A")],
)  # fmt: skip
def test_fterm_theme_code_rejects(group: str, number: str) -> None:
    with pytest.raises(InvalidCodeError) as caught:
        fterm_theme_code(group, number)
    assert caught.value.code == "INVALID_CODE"
    assert caught.value.scheme == "fterm"


@pytest.mark.parametrize(
    ("filename", "canonical", "kind"),
    [
        ("G06F3-048.pdf", "G06F3/048", "subgroup"),
        ("G06F___3-048.pdf", "G06F3/048", "subgroup"),
        ("G06F___3-0480.pdf", "G06F3/048", "subgroup"),  # a trailing zero: the same code
        ("G06F___3-00.pdf", "G06F3/00", "main_group"),
        ("C07D_521-00.pdf", "C07D521/00", "main_group"),
        ("G06F1234-56.pdf", "G06F1234/56", "subgroup"),
        ("G06F.pdf", "G06F", "subclass"),
        ("G06.pdf", "G06", "class"),
        ("G.pdf", "G", "section"),
        ("G06F3-048.PDF", "G06F3/048", "subgroup"),
        ("G06F___3-048", "G06F3/048", "subgroup"),
        ("REFERENCE/IPC_TEIGI/G06F___3-048.pdf", "G06F3/048", "subgroup"),
        ("REFERENCE\\IPC_TEIGI\\G06F.pdf", "G06F", "subclass"),
    ],
)
def test_ipc_code_from_pdf_name(filename: str, canonical: str, kind: str) -> None:
    code = ipc_code_from_pdf_name(filename)
    assert code.scheme == "ipc"
    assert code.canonical == canonical
    assert code.kind == kind


@pytest.mark.parametrize(
    "filename",
    [
        "",
        ".pdf",
        "G06F3_048.pdf",
        "G06F3-4.pdf",
        "G06F__3-048.pdf",  # padding to 3 places
        "G06F____3-048.pdf",  # padding to 5 places
        "G06F03-048.pdf",
        "G06F3-048,501.pdf",
        "G06F3/048.pdf",
        "G06F3-048.txt",
        "G06F3-048.pdf.pdf",
        "Z99Z.pdf",
        "G06F3-.pdf",
        "IPC_TEIGI/",
    ],
)
def test_ipc_code_from_pdf_name_rejects(filename: str) -> None:
    with pytest.raises(InvalidCodeError) as caught:
        ipc_code_from_pdf_name(filename)
    assert caught.value.code == "INVALID_CODE"
    assert "G06F3-048.pdf" in str(caught.value)


# --------------------------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------------------------

INVALID: list[tuple[str, str]] = [
    ("fi", ""),
    ("fi", "   "),
    ("fi", "\u3000"),
    ("fi", "G06F3/"),
    ("fi", "G06F3"),
    ("fi", "G06F 3"),
    ("fi", "/048"),
    ("fi", "Z99Z"),
    ("fi", "I06F3/048"),  # no section I
    ("fi", "G6F3/048"),
    ("fi", "G06FF3/048"),
    ("fi", "G06F3/048,21"),
    ("fi", "G06F3/048,2101"),
    ("fi", "G06F3/048@AB"),
    ("fi", "G06F3/048@1"),
    ("fi", "G06F3/048@"),
    ("fi", "G06F3/048,"),
    ("fi", "G06F3/048@A,501"),  # wrong order
    ("fi", "G06F3/4"),
    ("fi", "G06F3/1234567"),
    ("fi", "G06F0/00"),
    ("fi", "G06F03/048"),  # leading zero outside the WIPO form
    ("fi", "G06F0003/048"),
    ("fi", "G06F12345/00"),
    ("fi", "G06F3/048 (2006.01)"),  # versions are IPC only
    ("fi", "G06F3/048 2006.01"),
    ("fi", "G06F3-048"),
    ("fi", "G06F3//048"),
    ("fi", "G06F3/04 8"),
    ("fi", "G06F3/048B"),  # a file symbol glued to a subgroup (only after a development code)
    ("fi", "G06F3/048 101 B C"),
    ("fi", "G06F3/048 1011"),
    ("fi", "Z06F3/048"),  # Z is a section only alone
    ("fi", "ZZ"),
    ("ipc", "Z"),  # the broad-facet section row is FI only
    ("ipc", "G06F3/0481230"),  # seven digits even after folding trailing zeros
    ("fterm", "4C083AA000"),
    ("fi", "G06 F3/048"),
    ("fi", "ZA"),
    ("fi", "ZAAA"),
    ("fi", "AAA"),  # broad facets start with Z
    ("fi", "ZA1"),
    ("fi", "G06F3/048\x00"),
    ("fi", "G06F\x013/048"),
    ("fi", "G06F\t3/048"),
    ("fi", "G06F3²/048"),  # NFKC would turn ² into 2
    ("fi", "G06F3⁄048"),  # fraction slash
    ("fi", "G06F3∕048"),  # division slash
    ("fi", "Ｇ０６Ｆ３／０４８\ufeff"),
    ("fi", "G06F3/048" + " " * 60),
    ("fi", "G" * 65),
    ("fi", "G06F0003048"),  # truncated WIPO form
    ("fi", "G06F00030480000"),
    ("fi", "G06F0000048000"),  # WIPO main group 0
    # Fixed-width shaped but damaged: must not be read by pattern
    ("fi", "B21B  37/   00210"),  # one padding space lost: not subgroup 00210
    ("fi", "B60J   5/   00501B"),
    ("fi", "B60J   5/    00501BB"),
    ("fi", "B60J   5/    0050 B"),
    ("fi", "G06F   3/   048 21 "),
    ("fi", "G06F   3/   048  1 "),
    ("fi", "G06F   3/   048   1"),
    ("fi", "G06F   0/    00    "),
    ("ipc", ""),
    ("ipc", "G06F3/048,501"),  # FI-only extensions
    ("ipc", "G06F3/048@A"),
    ("ipc", "B60J   5/    00501B"),
    ("ipc", "ZAA"),
    ("ipc", "G06F3/048 (2006.13)"),
    ("ipc", "G06F3/048 (1806.01)"),
    ("ipc", "G06F3/048 (2006.1)"),
    ("ipc", "G06F3/048 (2006.01"),
    ("ipc", "G06F3/0482006.01"),
    ("ipc", "G06F3/048 (2006.01) (2006.01)"),
    ("ipc", "(2006.01)"),
    ("ipc", "4C083"),
    ("fi", "G06F3:048"),  # indexing codes exist only in the IPC
    ("fi", "A61K 103:    00     "),
    ("ipc", "A61K8:00 (2006.01)"),  # editions 4 to 7 have no versions
    ("ipc", "A61K8:00 2006.01"),
    ("ipc", "A61K8:0"),
    ("ipc", "A61K8:00,501"),
    ("ipc", "A61K0:00"),
    ("ipc", "A61K8::00"),
    ("ipc", "A61K8:/00"),
    ("ipc", "A61K:00"),
    ("fterm", ""),
    ("fterm", "4C08"),
    ("fterm", "4C0833"),
    ("fterm", "C4083"),
    ("fterm", "44083"),
    ("fterm", "4C083A"),
    ("fterm", "4C083AA1"),
    ("fterm", "4C083AA001"),
    ("fterm", "4C083A1"),
    ("fterm", "4C0831A01"),
    ("fterm", "4C083-AA01"),
    ("fterm", "4C083AA 01"),
    ("fterm", "4C083AA01B"),
    ("fterm", "G06F3/048"),
    ("fterm", "2B"),  # theme group header, not a theme
]


@pytest.mark.parametrize(("scheme", "text"), INVALID)
def test_invalid_codes_raise_invalid_code_error(scheme: str, text: str) -> None:
    with pytest.raises(InvalidCodeError) as caught:
        parse_code(scheme, text)
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.code == "INVALID_CODE"
    assert error.scheme == scheme
    assert error.text == text
    assert error.expected in str(error)
    example_code = {"fi": "G06F3/048", "ipc": "G06F3/048", "fterm": "4C083AA01"}[scheme]
    assert example_code in str(error)
    label = {"fi": "not an FI code", "ipc": "not an IPC code", "fterm": "not an F-term code"}
    assert str(error).startswith(label[scheme])
    with pytest.raises(InvalidCodeError):
        normalize_code(scheme, text)
    with pytest.raises(InvalidCodeError):
        format_fixed_width(scheme, text)


def test_error_message_examples() -> None:
    with pytest.raises(InvalidCodeError) as caught:
        parse_code("fi", "XYZ")
    message = str(caught.value)
    assert message.startswith("not an FI code: 'XYZ'; expected e.g. G06F3/048, B21B37/00,210")
    assert "B60J5/00,501@B" in message
    assert "19-character fixed width form" in message


def test_error_message_explains_reason() -> None:
    with pytest.raises(InvalidCodeError, match="at least 2 digits"):
        parse_code("fi", "G06F3/4")
    with pytest.raises(InvalidCodeError, match="only in FI"):
        parse_code("ipc", "G06F3/048,501")
    with pytest.raises(InvalidCodeError, match="development code columns"):
        parse_code("fi", "B21B  37/   00210")


def test_error_message_truncates_long_text() -> None:
    with pytest.raises(InvalidCodeError) as caught:
        parse_code("fi", "x" * 500)
    assert caught.value.text == "x" * 500
    assert len(str(caught.value)) < 400
    assert "…" in str(caught.value)


def test_errors_survive_pickling() -> None:
    with pytest.raises(InvalidCodeError) as caught:
        parse_code("fi", "G06F3/4")
    copy = pickle.loads(pickle.dumps(caught.value))
    assert isinstance(copy, InvalidCodeError)
    assert str(copy) == str(caught.value)
    assert (copy.scheme, copy.text, copy.reason) == ("fi", "G06F3/4", caught.value.reason)
    scheme_copy = pickle.loads(pickle.dumps(InvalidSchemeError("cpc")))
    assert scheme_copy.scheme == "cpc"
    assert str(scheme_copy) == str(InvalidSchemeError("cpc"))


@pytest.mark.parametrize("scheme", ["", "cpc", "f term", "fiterm", "IPC8", "x" * 200, "ｆ－ｔ"])
def test_unknown_scheme(scheme: str) -> None:
    with pytest.raises(InvalidSchemeError) as caught:
        parse_code(scheme, "G06F3/048")
    assert caught.value.code == "INVALID_SCHEME"
    assert isinstance(caught.value, ValueError)
    assert InvalidCodeError not in type(caught.value).__mro__
    assert "fterm" in str(caught.value)
    with pytest.raises(InvalidSchemeError):
        normalize_code(scheme, "G06F3/048")


def test_non_string_input_is_an_invalid_code() -> None:
    bad: Any = None
    with pytest.raises(InvalidCodeError):
        parse_code("fi", bad)
    with pytest.raises(InvalidCodeError):
        ipc_code_from_pdf_name(bad)
    with pytest.raises(InvalidCodeError):
        parse_ipc_version(bad)
    with pytest.raises(InvalidSchemeError):
        parse_code(bad, "G06F")


# --------------------------------------------------------------------------------------------
# ClassificationCode construction
# --------------------------------------------------------------------------------------------


def test_direct_construction_of_valid_code() -> None:
    code = ClassificationCode(
        scheme="fi",
        kind="main_group",
        section="B",
        class_="60",
        subclass="J",
        main_group="5",
        subgroup="00",
        development_code="501",
        file_symbol="B",
    )
    assert code == parse_code("fi", "B60J5/00,501@B")
    assert code.fixed_width() == "B60J   5/    00501B"


@pytest.mark.parametrize(
    "fields",
    [
        {"scheme": "fi", "kind": "subgroup", "section": "G", "class_": "06", "subclass": "F",
         "main_group": "3", "subgroup": "00"},  # a subgroup row cannot have subgroup 00
        {"scheme": "fi", "kind": "main_group", "section": "G", "class_": "06", "subclass": "F",
         "main_group": "3", "subgroup": "048"},
        {"scheme": "fi", "kind": "subclass", "section": "G", "class_": "06"},
        {"scheme": "fi", "kind": "section", "section": "G", "theme": "4C083"},
        {"scheme": "ipc", "kind": "main_group", "section": "G", "class_": "06", "subclass": "F",
         "main_group": "3", "subgroup": "00", "development_code": "501"},
        {"scheme": "fi", "kind": "section", "section": "G", "version": "2006.01"},
        {"scheme": "ipc", "kind": "facet", "facet": "ZAA"},
        {"scheme": "fterm", "kind": "section", "section": "G"},
        {"scheme": "fterm", "kind": "term", "theme": "4C083", "viewpoint": "A1", "number": "01"},
        {"scheme": "fi", "kind": "section", "section": "g"},
        {"scheme": "fi", "kind": "class", "section": "G", "class_": "６"},
        {"scheme": "fi", "kind": "main_group", "section": "G", "class_": "06", "subclass": "F",
         "main_group": "03", "subgroup": "00"},
        {"scheme": "fi", "kind": "galaxy", "section": "G"},
    ],
)  # fmt: skip
def test_direct_construction_is_validated(fields: dict[str, Any]) -> None:
    with pytest.raises(InvalidCodeError):
        ClassificationCode(**fields)


def test_direct_construction_with_unknown_scheme() -> None:
    with pytest.raises(InvalidSchemeError):
        ClassificationCode(scheme="cpc", kind="section", section="G")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

DIGITS = "0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

subclasses = st.builds(
    lambda s, c, x: s + c + x,
    st.sampled_from("ABCDEFGH"),
    st.text(DIGITS, min_size=2, max_size=2),
    st.sampled_from(UPPER),
)
main_groups = st.integers(min_value=1, max_value=9999).map(str)
subgroups = st.one_of(
    st.text(DIGITS, min_size=2, max_size=2),
    st.builds(
        lambda head, tail: head + tail,
        st.text(DIGITS, min_size=2, max_size=5),
        st.sampled_from("123456789"),
    ).filter(lambda sub: len(sub) <= 6),
)
development_codes = st.none() | st.text(DIGITS, min_size=3, max_size=3)
file_symbols = st.none() | st.sampled_from(UPPER)
versions = st.builds(
    lambda year, month: f"{year}.{month:02d}",
    st.integers(min_value=1900, max_value=2099),
    st.integers(min_value=1, max_value=12),
)


@st.composite
def canonical_fi(draw: st.DrawFn) -> str:
    head: str = draw(subclasses)
    level = draw(st.sampled_from(["section", "class", "subclass", "group", "facet"]))
    if level == "facet":
        letters: str = draw(st.text(UPPER, min_size=2, max_size=2))
        return "Z" + letters
    if level != "group":
        return head[: {"section": 1, "class": 3, "subclass": 4}[level]]
    text = f"{head}{draw(main_groups)}/{draw(subgroups)}"
    development_code = draw(development_codes)
    file_symbol = draw(file_symbols)
    if development_code is not None:
        text += "," + development_code
    if file_symbol is not None:
        text += "@" + file_symbol
    return text


@st.composite
def canonical_ipc(draw: st.DrawFn) -> str:
    head: str = draw(subclasses)
    level = draw(st.sampled_from([1, 3, 4, 0]))
    if level:
        prefix: str = head[:level]
        return prefix
    return f"{head}{draw(main_groups)}/{draw(subgroups)}"


canonical_fterm = st.builds(
    lambda digit, letter, number, rest: f"{digit}{letter}{number}{rest}",
    st.sampled_from(DIGITS),
    st.sampled_from(UPPER),
    st.text(DIGITS, min_size=3, max_size=3),
    st.one_of(
        st.just(""),
        st.text(UPPER, min_size=2, max_size=2),
        st.builds(
            lambda vp, num: vp + num,
            st.text(UPPER, min_size=2, max_size=2),
            # 00 is not a term: it spells the viewpoint itself (tested on its own)
            st.text(DIGITS, min_size=2, max_size=2).filter(lambda n: n != "00"),
        ),
    ),
)


@given(canonical_fi())
@example("B60J5/00,501@B")
def test_property_fi_canonical_is_a_fixed_point(text: str) -> None:
    assert normalize_code("fi", text) == text
    assert normalize_code("fi", text.lower()) == text
    code = parse_code("fi", text)
    assert parse_code("fi", code.fixed_width()) == code
    assert len(code.fixed_width()) == FI_FIXED_WIDTH


@given(canonical_ipc(), st.none() | versions)
def test_property_ipc_canonical_is_a_fixed_point(text: str, version: str | None) -> None:
    assert normalize_code("ipc", text) == text
    code = parse_code("ipc", text if version is None else f"{text} ({version})")
    assert code.canonical == text
    assert code.version == version
    assert parse_code("ipc", code.fixed_width()).canonical == text
    assert len(code.fixed_width()) == IPC_FIXED_WIDTH


@given(canonical_fterm)
def test_property_fterm_canonical_is_a_fixed_point(text: str) -> None:
    assert normalize_code("fterm", text) == text
    assert normalize_code("fterm", text.lower()) == text
    assert normalize_code("fterm", text[:5] + " " + text[5:]) == text
    fixed = format_fixed_width("fterm", text)
    assert len(fixed) == FTERM_FIXED_WIDTH
    assert normalize_code("fterm", fixed) == text


@given(subclasses, main_groups, subgroups, development_codes, file_symbols, st.booleans())
def test_property_fixed_width_round_trip(
    subclass: str,
    main: str,
    sub: str,
    development_code: str | None,
    file_symbol: str | None,
    trim_right: bool,
) -> None:
    cell = f"{subclass}{main:>4}/{sub:>6}{development_code or '   '}{file_symbol or ' '}"
    assert len(cell) == FI_FIXED_WIDTH
    code = parse_code("fi", cell.rstrip() if trim_right else cell)
    assert (code.section, code.class_, code.subclass) == (subclass[0], subclass[1:3], subclass[3])
    assert (code.main_group, code.subgroup) == (main, sub)
    assert (code.development_code, code.file_symbol) == (development_code, file_symbol)
    assert code.kind == ("main_group" if sub == "00" else "subgroup")
    assert code.fixed_width() == cell
    assert format_fixed_width("fi", code.canonical) == cell
    if development_code is None and file_symbol is None:
        assert format_fixed_width("ipc", cell) == cell[:IPC_FIXED_WIDTH]
    else:
        with pytest.raises(InvalidCodeError):
            parse_code("ipc", cell)


@given(subclasses, main_groups, subgroups)
def test_property_wipo_round_trip(subclass: str, main: str, sub: str) -> None:
    text = f"{subclass}{main}/{sub}"
    code = parse_code("ipc", text)
    wipo = code.wipo_symbol()
    assert len(wipo) == 14
    assert wipo == f"{subclass}{int(main):04d}{sub.ljust(6, '0')}"
    assert parse_code("ipc", wipo) == code
    assert parse_code("fi", wipo).canonical == text
    assert parse_code("fi", text).wipo_symbol() == wipo


@given(st.text(DIGITS, min_size=6, max_size=6), subclasses, main_groups)
def test_property_wipo_subgroup_digits(digits: str, subclass: str, main: str) -> None:
    code = parse_code("ipc", f"{subclass}{int(main):04d}{digits}")
    assert code.subgroup == (digits.rstrip("0") or "00").ljust(2, "0")
    assert code.wipo_symbol()[8:] == digits


# Pieces of real notations, so that generated text gets deep into the readers.
NOTATION_PIECES = st.lists(
    st.sampled_from(
        [*"GBZA06F3148/ ,@()._-ａＧ０／，＠\u3000\u00a0\t\n²⁄", "2006.01", "   ", "00"]
    ),
    max_size=25,
).map("".join)


@given(st.sampled_from(["fi", "ipc", "fterm"]), st.text() | NOTATION_PIECES)
@example("fi", "B21B  37/    0021")
@example("fi", "G06F   3/   048\u00b2  ")
@example("ipc", "G06F0000000000")
def test_property_only_invalid_code_error_escapes(scheme: str, text: str) -> None:
    try:
        code = parse_code(scheme, text)
    except InvalidCodeError as error:
        refusal: InvalidCodeError | None = error
    else:
        refusal = None
    if refusal is not None:
        assert refusal.code == "INVALID_CODE"
        assert refusal.expected in str(refusal)
        return
    # Whatever was accepted must be stable under its own spellings.
    assert parse_code(scheme, code.canonical).canonical == code.canonical
    assert parse_code(scheme, code.fixed_width()).canonical == code.canonical


@given(st.text())
def test_property_helpers_only_raise_invalid_code_error(text: str) -> None:
    codes: list[str] = []
    for call in (
        lambda: parse_ipc_version(text),
        lambda: ipc_code_from_pdf_name(text),
        lambda: fterm_theme_code(text, text),
        lambda: fterm_theme_code("4C", text),
    ):
        try:
            call()
        except InvalidCodeError as error:
            codes.append(error.code)
    assert set(codes) <= {"INVALID_CODE"}


@given(canonical_fterm.filter(lambda t: len(t) == 7))
def test_property_fterm_viewpoint_heading_is_the_viewpoint(viewpoint: str) -> None:
    code = parse_code("fterm", viewpoint + "00")
    assert (code.kind, code.canonical, code.number) == ("viewpoint", viewpoint, None)
    assert normalize_code("fterm", viewpoint[:5] + " " + viewpoint[5:] + "00") == viewpoint


@given(canonical_ipc(), st.integers(min_value=1, max_value=4))
def test_property_ipc_trailing_zeros_spell_the_same_code(text: str, zeros: int) -> None:
    code = parse_code("ipc", text)
    if code.kind != "subgroup" or len(str(code.subgroup)) + zeros > 6:
        return
    assert normalize_code("ipc", text + "0" * zeros) == text
    head, sub = text.split("/")
    padded = f"{head[:4]}{head[4:]:>4}/{sub + '0' * zeros}"
    assert normalize_code("ipc", padded) == text


@given(subclasses, main_groups, subgroups, development_codes, file_symbols)
def test_property_fi_space_separators(
    subclass: str, main: str, sub: str, dev: str | None, sym: str | None
) -> None:
    canonical = f"{subclass}{main}/{sub}" + (f",{dev}" if dev else "") + (f"@{sym}" if sym else "")
    spaced = f"{subclass} {main}/{sub}" + (f" {dev}" if dev else "") + (f" {sym}" if sym else "")
    assert normalize_code("fi", spaced) == normalize_code("fi", canonical)
