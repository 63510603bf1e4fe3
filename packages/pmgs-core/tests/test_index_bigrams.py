"""The bigram tokens the index gets for a text are those a query of that text looks up.

A long text (a quarantined CSV cell of megabytes) is cut with less memory; its tokens must
still be exactly the distinct pairs of :func:`bigram_tokens`, which the query side uses.
"""

from __future__ import annotations

import pmgs_core.folding as folding
from pmgs_core.folding import bigram_tokens, index_bigrams


def _tokens(text: str) -> set[str]:
    return set(text.split())


def test_a_long_text_gets_the_distinct_pairs_of_bigram_tokens() -> None:
    # Kana, kanji, ASCII words, separators and full-width forms, past the long-text bound.
    unit = "合成データ：樹脂の塗料装置 A27Q 1/00, ｆｕｌｌ-width ｶﾀｶﾅ。"
    text = unit * (folding._LONG_TEXT // len(unit) + 3)
    assert len(text) > folding._LONG_TEXT
    (indexed,) = index_bigrams([text])
    assert indexed.split() == list(dict.fromkeys(indexed.split()))  # each pair once
    assert _tokens(indexed) == _tokens(bigram_tokens(text))
    # Hand-checked members: a kana pair, a folded full-width pair, an ASCII word pair.
    assert {"合成", "fu", "a2", "樹脂"} <= _tokens(indexed)


def test_short_and_long_rows_in_one_chunk() -> None:
    long_row = "あい" * (folding._LONG_TEXT // 2 + 1)
    rows = ["特許分類", long_row, "G06F 3/048"]
    assert [_tokens(t) for t in index_bigrams(rows)] == [
        {"特許", "許分", "分類"},
        {"あい", "いあ"},
        {"g0", "06", "6f", "04", "48"},
    ]
