"""The trigram path without positions: which trigrams are asked, and that the check keeps
answers exact (ADR 0008)."""

from __future__ import annotations

import sqlite3

import pytest

from pmgs_core.schema import _TABLES
from pmgs_core.search import plan_query


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("abc", '"abc"'),
        ("制御するもの", '("制御す" AND "るもの")'),
        ("abcdefg", '("abc" AND "def" AND "efg")'),
        ('ab"c', '("ab""" AND "b""c")'),
        ("ＡＢＣ", '("ＡＢＣ" OR "ABC")'),
        ("abcd efg", '("abc" AND "bcd") AND "efg"'),
    ],
)
def test_a_term_is_the_and_of_trigrams_covering_it(query: str, expected: str) -> None:
    plan = plan_query(query)
    assert plan is not None
    assert plan.trigram_match == expected


def test_rows_holding_the_trigrams_apart_are_not_answers() -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript(_TABLES)
    conn.execute("CREATE TABLE doc (id INTEGER PRIMARY KEY, body TEXT)")
    rows = [(1, "zabcq zbcdq"), (2, "xxABCDxx"), (3, "abc")]
    conn.executemany("INSERT INTO doc VALUES (?, ?)", rows)
    conn.execute(
        "CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='id', "
        "tokenize='trigram', detail='none')"
    )
    conn.execute("INSERT INTO doc_fts (doc_fts) VALUES ('rebuild')")
    plan = plan_query("abcd")
    assert plan is not None
    candidates = conn.execute(
        "SELECT rowid FROM doc_fts WHERE doc_fts MATCH ? ORDER BY rowid", (plan.trigram_match,)
    ).fetchall()
    assert [row[0] for row in candidates] == [1, 2]  # the index alone over-approximates
    bodies = dict(rows)
    assert [row[0] for row in candidates if plan.matches(bodies[row[0]])] == [2]
