"""Any-word relevance ranking from a window of postings (ADR 0037), against oracles.

* On the generated database, where the window covers the whole scheme, the ranking must be
  the BM25 formula of ADR 0012 applied to *every* row holding a query word: the expected
  page is computed here by folding and scoring every row read by plain SQL, not by the code
  under test.
* On a hand-made FTS table, the window's candidates (most words held, then the rarer words,
  then package order; rows after the window left out) are checked against ids written by hand.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from pmgs_core import PMGSStore
from pmgs_core.folding import fold_for_search
from pmgs_core.search._window import WindowTerm, window_candidates

K1, B, SUPPORT = 1.2, 0.75, 0.2
_KANJI_WORD = re.compile(r"(?<![\u4e00-\u9fff])[\u4e00-\u9fff]{2}(?![\u4e00-\u9fff])")


def _fi_rows(store: PMGSStore) -> list[tuple[int, str, str]]:
    """(row id, code, body) of every canonical FI text in Japanese, by plain SQL."""
    return [
        (int(row[0]), str(row[1]), str(row[2]))
        for row in store._connection().execute(
            "SELECT t.id, c.code, t.body FROM text AS t JOIN revision AS r ON r.id = t.revision_id "
            "JOIN concept AS c ON c.id = r.concept_id WHERE c.scheme = 'fi' "
            "AND c.status = 'canonical' AND t.language = 'ja' ORDER BY t.id"
        )
    ]


def _words(store: PMGSStore, count: int, most: int) -> list[str]:
    """Words of two kanji held by 15 to ``most`` rows of the whole table (exact frequencies
    below 1,000, as the implementation counts them), taken from FI lines in package order
    until there are ``count``: words of the same lines, so that rows hold several."""
    folded_all = [
        fold_for_search(str(body))
        for (body,) in store._connection().execute("SELECT body FROM text")
    ]
    chosen: list[str] = []
    for _, _, body in _fi_rows(store):
        folded = fold_for_search(body)
        for pair in _KANJI_WORD.findall(folded):
            if pair in chosen:
                continue
            if 15 <= sum(1 for text in folded_all if pair in text) <= most:
                chosen.append(pair)
            if len(chosen) == count:
                return chosen
    raise AssertionError("the generated package has too few such words")


def _oracle(store: PMGSStore, words: Sequence[str]) -> list[tuple[str, float]]:
    """Every (code, score) of ADR 0012's formula over every FI row holding a word, best
    first (ties: the code whose first such row comes first)."""
    conn = store._connection()
    everything = [str(body) for (body,) in conn.execute("SELECT body FROM text")]
    rows = len(everything)
    average = sum(max(len(body) - 2, 0) for body in everything) / rows
    folded_all = [fold_for_search(body) for body in everything]
    idf = {}
    for word in words:
        frequency = sum(1 for body in folded_all if word in body)
        idf[word] = math.log(1 + (rows - frequency + 0.5) / (frequency + 0.5))
    by_code: dict[str, list[tuple[float, int]]] = {}
    for row_id, code, body in _fi_rows(store):
        folded = fold_for_search(body)
        held = [word for word in words if word in folded]
        if not held:
            continue
        norm = K1 * (1 - B + B * max(len(body) - 2, 1) / average)
        score = 0.0
        for word in held:
            count = folded.count(word)
            score += idf[word] * count * (K1 + 1) / (count + norm)
        by_code.setdefault(code, []).append((score * len(held) / len(words), row_id))
    groups = []
    for code, scored in by_code.items():
        best, *others = sorted((score for score, _ in scored), reverse=True)[:3]
        groups.append((best + SUPPORT * sum(others), min(row for _, row in scored), code))
    groups.sort(key=lambda group: (-group[0], group[1]))
    top = groups[0][0]
    return [(code, round(score / top, 4)) for score, _, code in groups]


@pytest.mark.parametrize(("count", "most"), [(2, 900), (4, 500), (6, 250)])
def test_any_word_ranking_is_the_formula_over_every_row(
    store: PMGSStore, count: int, most: int
) -> None:
    words = _words(store, count, most)
    page = store.search(" ".join(words), schemes=["fi"], order="relevance", match="any", limit=200)
    assert page["candidates_capped"] is False  # the window covered the scheme
    expected = _oracle(store, words)[:200]
    assert len({score for _, score in expected}) > 3  # not one tie: the order is tested
    got = [(hit["code"], hit["score"]) for hit in page["results"]]
    assert got == expected


def _table(postings: dict[str, Iterable[int]]) -> sqlite3.Connection:
    """An FTS5 table like the bigram index: each row holds the words listed for it."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE grams USING fts5(g, detail='none', tokenize='ascii')")
    holders: dict[int, list[str]] = {}
    for word, ids in postings.items():
        for row_id in ids:
            holders.setdefault(row_id, []).append(word)
    for row_id, held in sorted(holders.items()):
        conn.execute("INSERT INTO grams (rowid, g) VALUES (?, ?)", (row_id, " ".join(held)))
    return conn


def _stream(conn: sqlite3.Connection) -> Any:
    return conn.execute


def test_window_candidates_by_words_held_then_weight_then_order() -> None:
    # 100 rows; "aa" is common (every row), "bb" every other row, "cc" rare (rows 7, 90).
    conn = _table({"aa": range(1, 101), "bb": range(2, 101, 2), "cc": [7, 90]})
    terms = [
        WindowTerm("grams", '"cc"', 3.0, 2, 2),
        WindowTerm("grams", '"bb"', 1.0, 50, 50),
        WindowTerm("grams", '"aa"', 0.1, 100, 100),
    ]
    # The whole range within budget: three words held by 90 only (even, and cc), then two
    # with the larger weight (7: aa + cc = 3.1 against even rows' aa + bb = 1.1), then the
    # first even rows in package order.
    ids, cut = window_candidates(_stream(conn), terms, (1, 100), 100, 1000, 4)
    assert (ids, cut) == ([2, 4, 7, 90], True)
    # A budget of 30 postings: "cc" (2 expected, under a third of the budget) is read in
    # the whole range; the window of the common words is cut (28 / 1.5 per row: rows 1-18),
    # so 90 counts only its rare word and row 7 leads.
    ids, cut = window_candidates(_stream(conn), terms, (1, 100), 100, 30, 3)
    assert (ids, cut) == ([2, 4, 7], True)
    ids, cut = window_candidates(_stream(conn), terms, (1, 100), 100, 30, 40)
    assert cut is True
    assert ids == [*range(1, 19), 90]
