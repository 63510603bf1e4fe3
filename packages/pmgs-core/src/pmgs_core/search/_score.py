"""BM25 of one row and of its group: the formula, the weights and the phrase-order bonus.

The statistics, the formula and the group score are ADR 0012's (the phrase order ADR
0033's); which rows are scored is :mod:`pmgs_core.search._rank`'s.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Final

from pmgs_core.search._plan import QueryPlan, TermPlan

__all__ = [
    "GROUP_ROWS",
    "GROUP_SUPPORT",
    "K1",
    "PHRASE_ORDER_WEIGHT",
    "B",
    "Candidate",
    "GroupScoring",
    "IndexStats",
    "bm25_term",
    "idf",
    "in_phrase_order",
    "row_length",
    "score_row",
]

Row = tuple[Any, ...]
Candidate = tuple[Row, str]
"""A candidate row and its folded text (folded once, for the check and the score)."""

K1: Final = 1.2
B: Final = 0.75
GROUP_SUPPORT: Final = 0.2
"""Weight of a group's further matching rows next to its best one."""
GROUP_ROWS: Final = 3
"""Rows kept (and shown) per group: the best ones, in score order."""


@dataclass(frozen=True, slots=True)
class IndexStats:
    """Corpus statistics of one content type: rows and average row length in trigrams."""

    rows: int
    average_length: float


def idf(rows: int, frequency: int) -> float:
    """The BM25 inverse document frequency, in the form that is never negative."""
    return math.log(1.0 + (rows - frequency + 0.5) / (frequency + 0.5))


def bm25_term(weight: float, count: int, length: int, average_length: float) -> float:
    """One term's BM25 contribution to a row of ``length`` trigrams holding it ``count`` times."""
    norm = K1 * (1.0 - B + B * length / average_length)
    return weight * count * (K1 + 1.0) / (count + norm)


def row_length(body: str) -> int:
    """A row's length in the unit of the totals record: its trigram count (at least 1)."""
    return max(len(body) - 2, 1)


def score_row(
    folded: str,
    length: int,
    terms: tuple[TermPlan, ...],
    weights: dict[str, float],
    stats: IndexStats,
    *,
    phrase_order: bool = False,
) -> tuple[float, list[str]]:
    """A row's score and the terms (as typed) it holds; ``folded`` is its folded text and
    ``length`` its length in trigrams (:func:`row_length` of the raw text).

    The score is the BM25 sum times the share of the query's terms the row holds
    (coordination): with ``match="any"``, a row holding two of the query's words outranks one
    holding a single rarer word. Under ``match="all"`` every row holds all terms and the
    factor is 1. ``phrase_order`` (the terms are a phrase's words, ``_words``) multiplies it
    by up to 1 + :data:`PHRASE_ORDER_WEIGHT` for the words held in the phrase's order.
    """
    score, matched = 0.0, []
    for term in terms:
        count = folded.count(term.folded)
        if count:
            score += bm25_term(weights[term.folded], count, length, stats.average_length)
            matched.append(term.term)
    score *= len(matched) / len(terms)
    if phrase_order and len(matched) > 1:
        held = tuple(term for term in terms if term.term in matched)
        score *= 1.0 + PHRASE_ORDER_WEIGHT * in_phrase_order(folded, held)
    return score, matched


PHRASE_ORDER_WEIGHT: Final = 0.25
"""Most a row's score grows when it holds a phrase's words in the phrase's order (ADR 0033)."""


def in_phrase_order(folded: str, terms: tuple[TermPlan, ...]) -> float:
    """The share of consecutive pairs of ``terms`` (the phrase's words a row holds, in the
    phrase's order) that the row holds in that order (the first word's first occurrence
    before the second's last): ``燃料を用いた歯車の機構`` prefers ``燃料を用いた歯車機構``
    to ``歯車を用いた燃料機構``, which holds the same words."""
    pairs = list(itertools.pairwise(terms))
    held = 0
    for first, second in pairs:
        start = folded.find(first.folded)
        if start >= 0 and folded.rfind(second.folded) > start:
            held += 1
    return held / len(pairs)


@dataclass(frozen=True, slots=True)
class GroupScoring:
    """Scores the candidate rows and their groups (one query's terms, weights and grouping)."""

    plan: QueryPlan
    weights: dict[str, float]
    stats: IndexStats
    columns: tuple[int, int]
    group_key: Callable[[Row], Hashable] | None
    phrase_order: bool
    known: dict[int, tuple[float, list[str]]] = field(default_factory=dict)
    """Scores of rows already scored (a completed ranking scores its first rows again)."""

    def __call__(
        self, rows: dict[int, Candidate]
    ) -> tuple[
        dict[Hashable, list[tuple[float, int, Row]]],
        dict[Hashable, dict[str, None]],
        list[tuple[float, int, Hashable]],
    ]:
        """Each group's scored rows (best first), its matched terms, and (group score, first
        row id, key) of every group."""
        key_column, body_column = self.columns
        group_key = self.group_key
        scored: dict[Hashable, list[tuple[float, int, Row]]] = {}
        matched: dict[Hashable, dict[str, None]] = {}
        texts: dict[tuple[Hashable, str], object] = {}
        for row_id, (row, folded) in rows.items():
            if group_key is None:
                key: Hashable = int(row[key_column])
            else:
                key = group_key(row)
                unit = row[key_column]  # the concept: one edition of the code
                if texts.setdefault((key, folded), unit) != unit:
                    continue
            if row_id not in self.known:
                self.known[row_id] = score_row(
                    folded,
                    row_length(str(row[body_column])),
                    self.plan.terms,
                    self.weights,
                    self.stats,
                    phrase_order=self.phrase_order,
                )
            score, terms = self.known[row_id]
            scored.setdefault(key, []).append((score, row_id, row))
            matched.setdefault(key, {}).update(dict.fromkeys(terms))
        raw: list[tuple[float, int, Hashable]] = []  # (group score, first row id, key)
        for key, entries in scored.items():
            entries.sort(key=lambda entry: (-entry[0], entry[1]))
            best, *others = [entry[0] for entry in entries[:GROUP_ROWS]]
            raw.append((best + GROUP_SUPPORT * sum(others), min(e[1] for e in entries), key))
        return scored, matched, raw
