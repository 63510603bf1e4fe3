"""``fold_for_search`` replaces ASCII compatibility forms itself before NFKC (ADR 0036).

The oracle is ``unicodedata.normalize("NFKC", text).casefold()`` written here, the definition
the index and the queries were folded with before the shortcut: every character on its own,
each replaced form beside the marks and characters that compose or reorder with it, random
mixtures, and every text of the reference database.
"""

from __future__ import annotations

import random
import sqlite3
import unicodedata

import pytest

from pmgs_core.folding import fold_for_search


def _oracle(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _ascii_forms() -> list[str]:
    """Characters whose NFKD is ASCII, found without the module's own table."""
    return [
        chr(point)
        for point in range(0x80, 0x10000)
        if not 0xD800 <= point < 0xE000
        and unicodedata.normalize("NFKD", chr(point)) != chr(point)
        and unicodedata.normalize("NFKD", chr(point)).isascii()
    ]


NEIGHBOURS = [
    "\u0301",  # combining acute: composes with a replaced letter (Ａ + ́ → á)
    "\u0338",  # combining long solidus overlay: composes with = < > (＝ + ̸ → ≠)
    "\u3099",  # combining voiced mark
    "\u309a",
    "\u0327\u0301",  # two marks to reorder
    "か",
    "ｶ",  # half-width katakana (not replaced; NFKC composes it with ﾞ)
    "ﾞ",
    "Ⅻ",
    "ß",
    "İ",
    " ",
    "",
]


def test_every_character_folds_as_nfkc() -> None:
    wrong = [
        hex(point)
        for point in range(0x10000)
        if not 0xD800 <= point < 0xE000 and fold_for_search(chr(point)) != _oracle(chr(point))
    ]
    assert wrong == []


@pytest.mark.parametrize("neighbour", NEIGHBOURS)
def test_each_replaced_form_beside_marks_and_letters(neighbour: str) -> None:
    forms = _ascii_forms()
    assert len(forms) > 500
    wrong = [
        text
        for form in forms
        for text in (form + neighbour, neighbour + form, "名称" + form + neighbour + "：")
        if fold_for_search(text) != _oracle(text)
    ]
    assert wrong == []


def test_random_mixtures() -> None:
    draw = random.Random(42)
    others = ["制", "御", "ア", "ｱ", "Ａ", "a", "1", "：", "(", "㈱"]
    alphabet = [*_ascii_forms(), *NEIGHBOURS, *others]
    texts = ["".join(draw.choices(alphabet, k=draw.randint(1, 12))) for _ in range(20_000)]
    wrong = [text for text in texts if fold_for_search(text) != _oracle(text)]
    assert wrong == []


def test_every_text_of_the_reference_database(ro_conn: sqlite3.Connection) -> None:
    checked = 0
    wrong = []
    for table in ("text", "document_text"):
        for (body,) in ro_conn.execute(f"SELECT body FROM {table}"):
            checked += 1
            if fold_for_search(body) != _oracle(body):
                wrong.append(body[:80])
    assert checked > 1000
    assert wrong == []
