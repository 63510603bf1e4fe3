"""Hand-written tables of the code type's own rules: construction, spellings and errors (issue 22).

test_notation.py reads notations; this file pins what :class:`ClassificationCode` itself
checks when built from parts (every rule with the exact reason it gives), the fixed-width and
WIPO spellings, and the exact messages of the two error types, which interfaces show to
people and agents as they are. Every expected string is written out by hand.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from pmgs_core import ClassificationCode, InvalidCodeError, InvalidSchemeError

FI_EXPECTED = (
    "e.g. G06F3/048, B21B37/00,210, B21B1/00@A, B60J5/00,501@B, G06F, ZAA "
    "or the 19-character fixed width form"
)
IPC_EXPECTED = (
    "e.g. G06F3/048, G06F 3/048, G06F3/00, G06F, G06F0003048000, G06F3/048 (2006.01), "
    "an indexing code of editions 4 to 7 such as A61K103:00, "
    "or the 15-character fixed width form"
)
FTERM_EXPECTED = "e.g. 4C083 (theme), 4C083AA (viewpoint), 4C083AA01 or 4C083 AA01 (term)"
G06F = {"section": "G", "class_": "06", "subclass": "F"}

INVALID: list[tuple[str, str, dict[str, Any], str, str, str]] = [
    # (scheme, kind, fields, text of the error, reason, expected)
    ("ipc", "facet", {"facet": "ZAA"}, "facet: facet='ZAA'",
     "kind 'facet' does not exist in this scheme", IPC_EXPECTED),
    ("fterm", "subclass", G06F, "subclass: class_='06', section='G', subclass='F'",
     "kind 'subclass' does not exist in this scheme", FTERM_EXPECTED),
    ("fi", "class", {"section": "G"}, "class: section='G'", "missing class_", FI_EXPECTED),
    ("ipc", "subgroup", {"section": "G"}, "subgroup: section='G'",
     "missing class_, main_group, subclass, subgroup", IPC_EXPECTED),
    ("ipc", "subclass", {**G06F, "version": "2006.01", "main_group": "3"},
     "subclass: class_='06', main_group='3', section='G', subclass='F', version='2006.01'",
     "main_group not allowed here", IPC_EXPECTED),
    ("fi", "subclass", {**G06F, "version": "2006.01"},
     "subclass: class_='06', section='G', subclass='F', version='2006.01'",
     "version not allowed here", FI_EXPECTED),
    ("ipc", "subgroup", {**G06F, "main_group": "3", "subgroup": "048",
                         "development_code": "501", "file_symbol": "B"},
     "subgroup: class_='06', development_code='501', file_symbol='B', main_group='3', "
     "section='G', subclass='F', subgroup='048'",
     "development_code, file_symbol not allowed here", IPC_EXPECTED),
    ("fi", "subclass", {**G06F, "file_symbol": "B"},
     "subclass: class_='06', file_symbol='B', section='G', subclass='F'",
     "file_symbol not allowed here", FI_EXPECTED),
    ("fi", "class", {"section": "G", "class_": "6"}, "class: class_='6', section='G'",
     "invalid class_", FI_EXPECTED),
    ("fi", "main_group", {**G06F, "main_group": "03", "subgroup": "00"},
     "main_group: class_='06', main_group='03', section='G', subclass='F', subgroup='00'",
     "invalid main_group", FI_EXPECTED),
    ("fi", "subgroup", {**G06F, "main_group": "3", "subgroup": "0480"},
     "subgroup: class_='06', main_group='3', section='G', subclass='F', subgroup='0480'",
     "invalid subgroup", FI_EXPECTED),
    # Parts that read as a valid code only if their boundaries were lost: a valid code's
    # values are checked at once, joined by NUL (the path the build's codes take).
    ("ipc", "subclass", {"section": "6G", "class_": "0", "subclass": "F"},
     "subclass: class_='0', section='6G', subclass='F'", "invalid class_", IPC_EXPECTED),
    ("fi", "class", {"section": "G", "class_": "06\x00"}, "class: class_='06\\x00', section='G'",
     "invalid class_", FI_EXPECTED),
    ("fi", "subclass", {"section": "G", "class_": "06\x00G", "subclass": "F"},
     "subclass: class_='06\\x00G', section='G', subclass='F'", "invalid class_", FI_EXPECTED),
    ("fterm", "term", {"theme": "4C083", "viewpoint": "AA", "number": "00"},
     "term: number='00', theme='4C083', viewpoint='AA'", "invalid number", FTERM_EXPECTED),
    ("fterm", "theme", {"theme": 4083}, "theme: theme=4083", "invalid theme", FTERM_EXPECTED),
    ("ipc", "section", {"section": "G", "version": "2006.13"},
     "section: section='G', version='2006.13'", "invalid version", IPC_EXPECTED),
    ("ipc", "section", {"section": "Z"}, "section: section='Z'",
     "section Z (the FI broad facets) exists only as an FI section row", IPC_EXPECTED),
    ("fi", "class", {"section": "Z", "class_": "01"}, "class: class_='01', section='Z'",
     "section Z (the FI broad facets) exists only as an FI section row", FI_EXPECTED),
    ("fi", "main_group", {**G06F, "main_group": "3", "subgroup": "048"},
     "main_group: class_='06', main_group='3', section='G', subclass='F', subgroup='048'",
     "a main group has subgroup 00 and a subgroup does not", FI_EXPECTED),
    ("ipc", "subgroup", {**G06F, "main_group": "3", "subgroup": "00"},
     "subgroup: class_='06', main_group='3', section='G', subclass='F', subgroup='00'",
     "a main group has subgroup 00 and a subgroup does not", IPC_EXPECTED),
    ("fi", "main_group", {**G06F, "main_group": "3", "subgroup": "00", "indexing": True},
     "main_group: class_='06', main_group='3', section='G', subclass='F', subgroup='00'",
     "':' marks an indexing code, which exists only as an IPC group", FI_EXPECTED),
    ("ipc", "subclass", {**G06F, "indexing": True},
     "subclass: class_='06', section='G', subclass='F'",
     "':' marks an indexing code, which exists only as an IPC group", IPC_EXPECTED),
    ("ipc", "main_group", {**G06F, "main_group": "3", "subgroup": "00", "indexing": True,
                           "version": "2006.01"},
     "main_group: class_='06', main_group='3', section='G', subclass='F', subgroup='00', "
     "version='2006.01'",
     "an indexing code belongs to IPC editions 4 to 7, which have no version", IPC_EXPECTED),
    ("ipc", "main_group", {**G06F, "main_group": "3", "subgroup": "00", "indexing": 1},
     "main_group: class_='06', main_group='3', section='G', subclass='F', subgroup='00'",
     "indexing must be True or False", IPC_EXPECTED),
]  # fmt: skip


@pytest.mark.parametrize(("scheme", "kind", "fields", "text", "reason", "expected"), INVALID)
def test_construction_refuses_inconsistent_parts(
    scheme: str, kind: str, fields: dict[str, Any], text: str, reason: str, expected: str
) -> None:
    with pytest.raises(InvalidCodeError) as raised:
        ClassificationCode(scheme, kind, **fields)  # type: ignore[arg-type]
    error = raised.value
    assert (error.scheme, error.text, error.reason, error.expected) == (
        scheme,
        text,
        reason,
        expected,
    )
    assert error.code == "INVALID_CODE"


VALID: list[tuple[str, str, dict[str, str], str, str]] = [
    # (scheme, kind, fields, canonical, fixed width)
    ("fi", "section", {"section": "Z"}, "Z", "Z" + " " * 18),
    ("fi", "facet", {"facet": "ZAA"}, "ZAA", "ZAA" + " " * 16),
    ("fi", "main_group", {**G06F, "main_group": "3", "subgroup": "00"},
     "G06F3/00", "G06F   3/    00    "),
    ("fi", "subgroup", {**G06F, "main_group": "3", "subgroup": "048",
                        "development_code": "501", "file_symbol": "B"},
     "G06F3/048,501@B", "G06F   3/   048501B"),
    ("fi", "subgroup", {**G06F, "main_group": "1234", "subgroup": "00001", "file_symbol": "A"},
     "G06F1234/00001@A", "G06F1234/ 00001   A"),
    ("ipc", "subgroup", {**G06F, "main_group": "3", "subgroup": "048", "version": "2006.01"},
     "G06F3/048", "G06F   3/   048"),
    ("ipc", "class", {"section": "G", "class_": "06", "version": "2019.12"},
     "G06", "G06" + " " * 12),
    ("fterm", "theme", {"theme": "4C083"}, "4C083", "4C083     "),
    ("fterm", "viewpoint", {"theme": "4C083", "viewpoint": "AA"}, "4C083AA", "4C083AA00 "),
    ("fterm", "term", {"theme": "4C083", "viewpoint": "AA", "number": "01"},
     "4C083AA01", "4C083AA01 "),
    ("ipc", "main_group", {"section": "A", "class_": "61", "subclass": "K", "main_group": "103",
                           "subgroup": "00", "indexing": True},
     "A61K103:00", "A61K 103:    00"),
    ("ipc", "subgroup", {"section": "C", "class_": "11", "subclass": "D", "main_group": "1",
                         "subgroup": "04", "indexing": True},
     "C11D1:04", "C11D   1:    04"),
    ("ipc", "main_group", {"section": "A", "class_": "61", "subclass": "K", "main_group": "103",
                           "subgroup": "00", "indexing": False},
     "A61K103/00", "A61K 103/    00"),
]  # fmt: skip


@pytest.mark.parametrize(("scheme", "kind", "fields", "canonical", "fixed"), VALID)
def test_spellings_of_hand_built_codes(
    scheme: str, kind: str, fields: dict[str, str], canonical: str, fixed: str
) -> None:
    code = ClassificationCode(scheme, kind, **fields)  # type: ignore[arg-type]
    assert code.canonical == canonical == str(code)
    assert code.fixed_width() == fixed
    assert len(fixed) == {"fi": 19, "ipc": 15, "fterm": 10}[scheme]


def test_indexing_code_and_group_of_the_same_numbers_are_two_codes() -> None:
    parts = {"section": "A", "class_": "61", "subclass": "K", "main_group": "8", "subgroup": "00"}
    indexing = ClassificationCode("ipc", "main_group", indexing=True, **parts)
    group = ClassificationCode("ipc", "main_group", **parts)
    assert indexing != group
    assert (indexing.canonical, group.canonical) == ("A61K8:00", "A61K8/00")
    assert (indexing.separator, group.separator) == (":", "/")
    assert group.wipo_symbol() == "A61K0008000000"
    with pytest.raises(InvalidCodeError) as raised:
        indexing.wipo_symbol()
    assert raised.value.reason == (
        "an indexing code has no WIPO 14-character symbol (it would read as a group)"
    )


def test_ipc_class() -> None:
    assert ClassificationCode("ipc", "class", section="G", class_="06").ipc_class == "G06"
    assert ClassificationCode("ipc", "section", section="G").ipc_class is None
    assert ClassificationCode("fterm", "theme", theme="4C083").ipc_class is None


@pytest.mark.parametrize(
    ("scheme", "fields", "symbol"),
    [
        ("ipc", {**G06F, "main_group": "3", "subgroup": "048"}, "G06F0003048000"),
        ("ipc", {**G06F, "main_group": "3", "subgroup": "00"}, "G06F0003000000"),
        ("ipc", {**G06F, "main_group": "1234", "subgroup": "12345"}, "G06F1234123450"),
        (
            "fi",
            {**G06F, "main_group": "3", "subgroup": "048", "development_code": "501"},
            "G06F0003048000",
        ),
    ],
)
def test_wipo_symbols(scheme: str, fields: dict[str, str], symbol: str) -> None:
    kind = "main_group" if fields["subgroup"] == "00" else "subgroup"
    assert ClassificationCode(scheme, kind, **fields).wipo_symbol() == symbol  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("code", "scheme", "text", "kind"),
    [
        (ClassificationCode("ipc", "subclass", **G06F), "ipc", "G06F", "subclass"),
        (ClassificationCode("fi", "facet", facet="ZAB"), "fi", "ZAB", "facet"),
        (ClassificationCode("fterm", "theme", theme="4C083"), "fterm", "4C083", "theme"),
    ],
)
def test_codes_without_a_wipo_symbol(
    code: ClassificationCode, scheme: str, text: str, kind: str
) -> None:
    with pytest.raises(InvalidCodeError) as raised:
        code.wipo_symbol()
    error = raised.value
    assert (error.scheme, error.text, error.expected, error.reason) == (
        scheme,
        text,
        "a main group or subgroup such as G06F3/048",
        f"a {kind} has no WIPO 14-character symbol",
    )


@pytest.mark.parametrize(
    ("scheme", "text", "reason", "message"),
    [
        ("fi", "X1", None, "not an FI code: 'X1'; expected E"),
        ("ipc", "X1", "bad part", "not an IPC code: 'X1' (bad part); expected E"),
        ("fterm", "", None, "not an F-term code: ''; expected E"),
        ("cpc", "X1", "", "not a cpc code: 'X1'; expected E"),
        ("Epo", "X", None, "not an Epo code: 'X'; expected E"),
        ("Atlas", "X", None, "not an Atlas code: 'X'; expected E"),
        ("Orb", "X", None, "not an Orb code: 'X'; expected E"),
        ("Ursa", "X", None, "not an Ursa code: 'X'; expected E"),
        ("atlas", "X", None, "not a atlas code: 'X'; expected E"),
        ("fi", "A" * 80, None, f"not an FI code: '{'A' * 80}'; expected E"),
        ("fi", "A" * 81, None, f"not an FI code: '{'A' * 80}'…; expected E"),
    ],
)
def test_invalid_code_messages(scheme: str, text: str, reason: str | None, message: str) -> None:
    error = InvalidCodeError(scheme, text, "E", reason)
    assert str(error) == message
    assert (error.scheme, error.text, error.expected, error.reason) == (scheme, text, "E", reason)
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.reason) == (InvalidCodeError, message, reason)


@pytest.mark.parametrize(
    ("scheme", "message"),
    [
        (
            "cpc",
            "unknown classification scheme: 'cpc'; expected one of fi, ipc, fterm (F-term), "
            "in any letter case",
        ),
        (
            "x" * 81,
            f"unknown classification scheme: '{'x' * 80}'; expected one of fi, ipc, fterm "
            "(F-term), in any letter case",
        ),
    ],
)
def test_invalid_scheme_messages(scheme: str, message: str) -> None:
    error = InvalidSchemeError(scheme)
    assert str(error) == message
    assert error.code == "INVALID_SCHEME"
    assert error.scheme == scheme
    assert error.expected == "one of fi, ipc, fterm (F-term), in any letter case"
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy)) == (InvalidSchemeError, message)


def test_unknown_scheme_in_construction() -> None:
    with pytest.raises(InvalidSchemeError) as raised:
        ClassificationCode("cpc", "section", section="G")  # type: ignore[arg-type]
    assert raised.value.scheme == "cpc"
