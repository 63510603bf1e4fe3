"""A 2-character term is proven by the bigram index: the premise ADR 0036 rests on.

The index-order path leaves out the exact check of a term whose one bigram token is the
folded term itself (``QueryPlan.unproven_terms``). That is right only if the bigram tables
hold a row for a pair exactly when the row's folded text holds the pair. Checked here on the
built reference database for pairs of every sort (kana, kanji, folded full-width punctuation,
ASCII letters and digits), with the folding written here (NFKC, then casefold) rather than
taken from pmgs_core; and the rule itself is checked by hand on terms whose folding changes
their length.
"""

from __future__ import annotations

import sqlite3
import unicodedata

import pytest

from pmgs_core.search import plan_words

PAIRS = ["デー", "ータ", "樹脂", "制御", "電池", "用い", "ﾃﾞ", "ＳＹ", "sy", "nt", "a2", "：食"]


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


@pytest.mark.parametrize(
    ("bigram", "rows"),
    [
        (
            "text_bigram",
            "SELECT t.id, t.body FROM text AS t JOIN revision AS r ON r.id = t.revision_id "
            "JOIN concept AS c ON c.id = r.concept_id WHERE c.status = 'canonical'",
        ),
        ("document_text_bigram", "SELECT id, body FROM document_text"),
    ],
)
def test_the_bigram_index_holds_a_pair_exactly_where_the_folded_text_does(
    ro_conn: sqlite3.Connection, bigram: str, rows: str
) -> None:
    texts = [(int(row_id), _fold(str(body))) for row_id, body in ro_conn.execute(rows)]
    found_any = 0
    for pair in PAIRS:
        (term,) = plan_words([pair]).terms  # type: ignore[union-attr]
        if term.path != "bigram" or term.bigram_tokens != (term.folded,):
            continue  # not a proven term: its check stays
        expected = {row_id for row_id, folded in texts if term.folded in folded}
        indexed = {
            int(row_id)
            for (row_id,) in ro_conn.execute(
                f"SELECT rowid FROM {bigram} WHERE {bigram} MATCH ?",
                ['"' + term.folded + '"'],
            )
        }
        assert indexed == expected, pair
        found_any += bool(expected)
    assert found_any >= 5, "the pairs should occur in the reference texts"


def test_only_a_term_that_is_its_own_bigram_token_goes_unchecked() -> None:
    def unproven(word: str) -> tuple[str, ...]:
        plan = plan_words([word])
        assert plan is not None
        return plan.unproven_terms

    assert unproven("電池") == ()
    assert unproven("ＡＢ") == ()  # folds to "ab", one token
    assert unproven("㍿") == ("株式会社",)  # one character, three tokens: checked
    assert unproven("a,") == ("a,",)  # no token: the literal scan, checked
    assert unproven("池") == ("池",)
    assert unproven("制御する") == ("制御する",)  # trigram: never proven
    both = plan_words(["電池", "制御する"])
    assert both is not None
    assert both.unproven_terms == ("制御する",)
    check = both.candidate_check()
    assert check("電池を制御する装置")
    assert not check("電池を制御")
