"""Any-word candidates from a bounded window of the package (ADR 0037).

A ranked ``match="any"`` query needs the rows holding the most (and rarest) of its words.
Asking the index for every combination of the words (an AND per subset) reads each common
word's whole posting list once per combination: at scale 1 six common words cost 22 ANDs
of 10-20 ms each, most of them empty. Here each word's postings are read once, and only in a
window of row ids (package order) whose expected postings fit a fixed budget; inside the
window the count is exact (every row holding any of the words is counted), so the
candidates are the window's rows holding the most words, then the rarest, then the first in
package order. A word whose postings in the whole range fit its share of the budget is read
in the whole range: the rows holding a rare word anywhere stay candidates.

The statements are bounded (``LIMIT``), so a query costs at most the budget in postings
however common its words are; the price is that rows after the window are not seen when
the words are common, which ``candidates_capped`` discloses.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["WINDOW_POSTINGS", "WindowTerm", "window_candidates"]

Stream = Callable[[str, list[object]], Iterable[tuple[Any, ...]]]

WINDOW_POSTINGS: Final = 12000
"""Most posting ids read for the candidates of one query of classification texts (all its
schemes together): the window of row ids is cut so that its expected postings fit."""
SAFETY: Final = 2.0
"""A word may return this many times its expected postings in the window (its density in
one scheme's range can exceed its density in the table) before the window is cut at it."""


@dataclass(frozen=True, slots=True)
class WindowTerm:
    """One indexed word: its index table and MATCH text, its weight (idf), how many rows of
    the whole table hold it (estimated as for the weight) and how many postings the index
    reads to answer it (more than its rows when it is an AND of common trigrams)."""

    table: str
    expression: str
    weight: float
    frequency: int
    cost: int


def _read(stream: Stream, term: WindowTerm, first: int, last: int, limit: int) -> list[int]:
    """The term's first ``limit`` row ids in ``first..last``, ascending. They come back as
    one text (``group_concat``): a row a posting would cost more than counting them all."""
    sql = (
        f"SELECT group_concat(rowid) FROM (SELECT rowid FROM {term.table} "  # noqa: S608
        f"WHERE {term.table} MATCH ? AND rowid BETWEEN ? AND ? LIMIT ?)"
    )
    for (joined,) in stream(sql, [term.expression, first, last, limit]):
        if joined:
            return sorted(map(int, str(joined).split(",")))
    return []


def window_candidates(
    stream: Stream,
    terms: list[WindowTerm],
    id_range: tuple[int, int],
    rows: int,
    budget: int,
    count: int,
) -> tuple[list[int], bool]:
    """The ``count`` best candidate row ids in ``id_range`` (in id order) and whether some
    were left out (the window ended before the range, or more rows than ``count``).

    ``rows`` is the table's row count (for the words' densities). Best: most words held,
    then the larger sum of their weights, then the first in package order.
    """
    first, last = id_range
    if not terms or last < first:
        return [], False
    span = last - first + 1
    expected = {id(term): min(term.frequency / max(rows, 1), 1.0) * span for term in terms}
    work = {id(term): max(term.cost / max(rows, 1), 1e-9) * span for term in terms}
    share = budget / len(terms)
    whole = [term for term in terms if work[id(term)] <= share]
    windowed = [term for term in terms if work[id(term)] > share]
    postings: dict[int, list[int]] = {}
    horizon = last
    for term in list(whole):
        limit = int(SAFETY * share) + 1
        ids = _read(stream, term, first, last, limit)
        postings[id(term)] = ids
        budget -= max(len(ids), int(work[id(term)]))
        if len(ids) >= limit:  # denser in this range than in the table: a window's word
            whole.remove(term)
            horizon = min(horizon, ids[-1])
    if windowed:
        density = sum(work[id(term)] for term in windowed) / span
        reach = first + max(int(max(budget, len(windowed)) / density), 1) - 1
        horizon = min(horizon, reach)
        for term in windowed:
            limit = max(int(SAFETY * expected[id(term)] * (horizon - first + 1) / span), 16)
            ids = _read(stream, term, first, horizon, limit)
            if len(ids) >= limit:
                horizon = ids[-1]
            postings[id(term)] = ids
    cut = horizon < last
    read_whole = {id(term) for term in whole}
    held: Counter[int] = Counter()
    members: list[tuple[set[int], float]] = []
    for term in terms:
        ids = postings[id(term)]
        if id(term) not in read_whole and ids and ids[-1] > horizon:
            ids = ids[: bisect.bisect_right(ids, horizon)]
        held.update(ids)
        members.append((set(ids), term.weight))
    if len(held) <= count:
        return sorted(held), cut
    sizes = Counter(held.values())
    above = 0
    for number in sorted(sizes, reverse=True):
        if above + sizes[number] >= count:
            break
        above += sizes[number]
    chosen = [row_id for row_id, held_by in held.items() if held_by > number]
    bucket = sorted(row_id for row_id, held_by in held.items() if held_by == number)
    weight = dict.fromkeys(bucket, 0.0)
    for rows_held, term_weight in members:
        for row_id in rows_held.intersection(bucket):
            weight[row_id] += term_weight
    bucket.sort(key=weight.__getitem__, reverse=True)  # stable: ties stay in id order
    return sorted(chosen + bucket[: count - len(chosen)]), True
