"""Relevance order: BM25 over the trigram and bigram indexes, with a bounded candidate set.

Relevance cannot stop at the end of a page as index order does (the best row may be the
last), so it scores a capped set of candidate rows and ranks groups by their best evidence.
The statistics, the formula, the candidate cap and the score normalisation are ADR 0012's;
the any-word candidates of several indexed words come from a window of their postings and
the best groups are completed with their other lines (ADR 0037, ``_window``).
"""

from __future__ import annotations

import heapq
import unicodedata
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal

from pmgs_core.folding import fold_for_search
from pmgs_core.records import SearchIndex
from pmgs_core.search._plan import QueryPlan, TermPlan, _fts_phrase, covering_trigrams
from pmgs_core.search._score import (
    GROUP_ROWS,
    GROUP_SUPPORT,
    K1,
    PHRASE_ORDER_WEIGHT,
    B,
    Candidate,
    GroupScoring,
    IndexStats,
    bm25_term,
    idf,
    in_phrase_order,
)
from pmgs_core.search._window import WINDOW_POSTINGS, WindowTerm, window_candidates

__all__ = [
    "CANDIDATE_CAP",
    "DOCUMENT_CANDIDATE_CAP",
    "GROUP_SUPPORT",
    "K1",
    "PHRASE_ORDER_WEIGHT",
    "RANKED_INDEX",
    "B",
    "IndexStats",
    "RankedGroup",
    "RankedPage",
    "bm25_term",
    "idf",
    "in_phrase_order",
    "rank_groups",
    "read_stats",
]

Order = Literal["index", "relevance"]
Match = Literal["all", "any"]
Row = tuple[Any, ...]
Stream = Callable[[str, list[object]], Iterable[Row]]

RANKED_INDEX: Final[SearchIndex] = "fts5_bm25"
"""The ``index`` of a ranked search (its ``search_mode`` is the contract's route by term)."""
CANDIDATE_CAP: Final = 1200
"""Most candidate rows read for one ranked query of classification texts (module doc)."""
DOCUMENT_CANDIDATE_CAP: Final = 400
"""The same for document segments: a segment is a page or a paragraph, several times the
length of a classification line, and folding and counting it costs as much more."""
WINDOW_ROWS: Final = 900
"""Most candidate rows a ``match="any"`` query of several indexed words reads by id, for the
whole candidate cap (a scheme's share gets its share): the window's best rows (``_window``)."""
COMPLETED_GROUPS: Final = 24
"""Best groups of a window's candidates whose other rows (``siblings``) are read and scored
too, so that their group score counts every matching row, not only the window's."""


@dataclass(frozen=True, slots=True)
class RankedGroup:
    """One classification or document: its normalised score, matched terms and best rows."""

    key: Hashable
    score: float
    raw_score: float
    matched_terms: list[str]
    rows: list[Row]


@dataclass(frozen=True, slots=True)
class RankedPage:
    """The groups of one page and whether more passed the filters; ``capped`` says that the
    candidate set was cut at :data:`CANDIDATE_CAP`."""

    groups: list[RankedGroup]
    has_more: bool
    capped: bool


def _varint(data: bytes, position: int) -> tuple[int, int]:
    """One SQLite varint (big-endian, 7 bits a byte, the ninth byte whole) at ``position``."""
    value = 0
    for index in range(8):
        byte = data[position + index]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, position + index + 1
    return (value << 8) | data[position + 8], position + 9


def read_stats(stream: Stream, fts: str, content: str) -> IndexStats:
    """Rows and average length from the FTS5 totals record of ``fts``.

    Falls back to counting ``content`` when the record is missing or empty (an index filled
    in an unusual way); ``fts`` and ``content`` are constants of this package, never input.
    """
    for (block,) in stream(f"SELECT block FROM {fts}_data WHERE id = 1", []):  # noqa: S608
        if isinstance(block, bytes) and block:
            rows, position = _varint(block, 0)
            tokens, _ = _varint(block, position)
            if rows > 0:
                return IndexStats(rows, max(tokens / rows, 1.0))
    for count, length in stream(
        f"SELECT count(*), avg(max(length(body) - 2, 1)) FROM {content}",  # noqa: S608
        [],
    ):
        return IndexStats(int(count), float(length or 1.0))
    return IndexStats(0, 1.0)  # pragma: no cover - an aggregate always returns a row


TRIGRAM_SAMPLE: Final = 256
"""Row ids read to estimate how common one trigram is (see :func:`_rare_trigram_match`)."""
RARE_TRIGRAMS: Final = 3
"""Trigrams of a long term that ask the index for its postings: its rarest ones."""


def _estimate(count: int, last: int, limit: int, last_id: int) -> int:
    """A document frequency from the first ``limit`` ids of an index answer (``count`` of
    them, the last ``last``): their count, or past the limit, the count scaled by how far
    into the id space they reached."""
    if count < limit:
        return count
    return round(count * max(last_id, last) / max(last, 1))


def _sample(stream: Stream, table: str, expression: str, limit: int) -> tuple[int, int]:
    """How many of the first ``limit`` ids of an index answer there are, and the last one:
    counted in SQL, so that a frequency costs no row in Python."""
    sql = (
        f"SELECT count(*), max(rowid) FROM (SELECT rowid FROM {table} "  # noqa: S608
        f"WHERE {table} MATCH ? LIMIT ?)"
    )
    for count, last in stream(sql, [expression, limit]):
        return int(count), int(last or 0)
    return 0, 0  # pragma: no cover - an aggregate always returns a row


def _rare_trigram_match(
    stream: Stream, fts: str, term: TermPlan, last_id: int, seen: dict[str, int]
) -> str:
    """The MATCH text of a 3+ character term for its postings: per spelling, the AND of its
    :data:`RARE_TRIGRAMS` rarest covering trigrams, not all of them.

    A trigram found in most rows (a recurring prefix, a common ending) makes the AND read its
    whole doclist, more than ten times the cost of the rare ones, and adds nothing to the
    selection; the rows this lets through are trimmed by the exact check. How common each
    trigram is comes from its first :data:`TRIGRAM_SAMPLE` ids (``seen`` keeps the estimates
    of one query, where the same trigrams recur).
    """
    groups = []
    spellings = dict.fromkeys([term.term, unicodedata.normalize("NFKC", term.term)])
    for spelling in (text for text in spellings if len(text) >= 3):
        grams = covering_trigrams(spelling)
        if len(grams) > RARE_TRIGRAMS:
            for gram in grams:
                if gram not in seen:
                    count, last = _sample(stream, fts, _fts_phrase(gram), TRIGRAM_SAMPLE)
                    seen[gram] = _estimate(count, last, TRIGRAM_SAMPLE, last_id)
            grams = sorted(grams, key=lambda gram: seen[gram])[:RARE_TRIGRAMS]
        joined = " AND ".join(_fts_phrase(gram) for gram in grams)
        groups.append(joined if len(grams) == 1 else f"({joined})")
    return groups[0] if len(groups) == 1 else "(" + " OR ".join(groups) + ")"


def _term_match(
    stream: Stream, fts: str, term: TermPlan, last_id: int, seen: dict[str, int]
) -> str | None:
    """The MATCH text asking one term's index, or None for a term no index answers alone."""
    if term.path == "literal":
        return None
    if term.path == "bigram":
        return QueryPlan((term,)).bigram_match
    return _rare_trigram_match(stream, fts, term, last_id, seen)


POSTINGS_PER_TERM: Final = 4000
"""Most row ids read from a term's index answer (package order): its document frequency is
exact below this and extrapolated above it, and (``match="any"``) these ids are the term's
share of the candidates."""


@dataclass(frozen=True, slots=True)
class _Postings:
    ids: list[int]
    frequency: int
    expression: str | None = None
    match: tuple[str, str] | None = None
    """The index table and MATCH text that answer the term alone (None: a literal term)."""


FREQUENCY_SAMPLE: Final = 1000
"""Row ids read first for a term's frequency; the rest of its :data:`POSTINGS_PER_TERM` is
read only when the any-match accumulation needs them (not when the index passes already
filled the cap, the usual case of a common word)."""


def _postings(
    stream: Stream,
    tables: tuple[str, str],
    term: TermPlan,
    stats: IndexStats,
    last_id: int,
    limit: int = FREQUENCY_SAMPLE,
    seen: dict[str, int] | None = None,
    *,
    ids_needed: bool = True,
) -> _Postings:
    """The first row ids of one term's index answer and its document frequency.

    Below ``limit`` ids the frequency is the count; above, the count scaled
    by how far into the id space the ids reached (rows are numbered in package order, and a
    word is spread over the package). A term no index holds weighs as if every row did.
    """
    fts, bigram = tables
    expression = _term_match(stream, fts, term, last_id, {} if seen is None else seen)
    table = fts if term.path == "trigram" else bigram
    if expression is None:
        if len(term.folded) != 1 or (not term.folded.isalnum() and term.folded.isascii()):
            return _Postings([], stats.rows)
        expression, table = _fts_phrase(term.folded) + " *", bigram
    ids: list[int] = []
    if ids_needed:
        sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? LIMIT ?"  # noqa: S608
        ids = [int(row[0]) for row in stream(sql, [expression, limit])]
        count, last = len(ids), (ids[-1] if ids else 0)
    else:
        count, last = _sample(stream, table, expression, limit)
    frequency = min(_estimate(count, last, limit, last_id), max(stats.rows, count))
    return _Postings(
        ids,
        frequency,
        expression if term.path == "trigram" else None,
        None if term.path == "literal" else (table, expression),
    )


def _cost(term: TermPlan, entry: _Postings, seen: dict[str, int]) -> int:
    """Postings the index reads to answer a term: its rows, or for a long term asked by its
    rarest trigrams (``seen`` holds their estimates), their rows: an AND of common trigrams
    reads them all however few rows hold the term."""
    cost = 0
    for spelling in dict.fromkeys([term.term, unicodedata.normalize("NFKC", term.term)]):
        grams = covering_trigrams(spelling) if len(spelling) >= 3 else []
        if len(grams) > RARE_TRIGRAMS and all(gram in seen for gram in grams):
            cost += sum(sorted(seen[gram] for gram in grams)[:RARE_TRIGRAMS])
    return max(entry.frequency, cost)


def _last_id(stream: Stream, content: str) -> int:
    for (value,) in stream(f"SELECT max(id) FROM {content}", []):  # noqa: S608
        return int(value or 0)
    return 0  # pragma: no cover - an aggregate always returns a row


ACCUMULATED_ROWS: Final = 400
"""Most rows read by id after the index passes (``match="any"``): the best by summed term
weight. Fixed, not derived from the page, so that every page of a query ranks the same set."""

SUBSET_TERMS: Final = 8
"""Up to this many fetching terms, ``match="any"`` also reads the rows holding all terms but
one (each left out in turn, the most common first) before the single terms."""
SUBSET_SHARE: Final = 50
"""Fewest rows each subset statement may add: the cap is shared among the subsets (at least
this many each), so that every combination of the terms is represented, not only the first
subsets in reading order."""
PAIR_SUBSET_TERMS: Final = 6
"""Up to this many, also the rows holding all terms but two (at most 15 statements): a pasted
phrase with two words from elsewhere still finds the texts holding the rest."""


def _with_rare_trigrams(plans: list[QueryPlan], postings: dict[str, _Postings]) -> list[QueryPlan]:
    """The plans with each long term asked by its rarest trigrams (as for its postings): the
    rows let through are trimmed by the exact check of every candidate."""
    overrides = tuple(
        (folded, entry.expression)
        for folded, entry in postings.items()
        if entry.expression is not None
    )
    return [QueryPlan(sub.terms, overrides) for sub in plans]


def _candidate_plans(plan: QueryPlan, match: Match, frequency: dict[str, int]) -> list[QueryPlan]:
    """The statements' plans, in reading order: all terms; then (``any``) all terms but one,
    and each term alone, rarest first. Rows holding more of the terms are read first, so
    that the cap cuts rows holding few, common terms."""
    plans = [plan]
    if match == "any" and len(plan.terms) > 1:
        fetching = [term for term in plan.terms if term.path != "literal"]
        if not fetching:
            fetching = list(plan.terms)
        fetching.sort(key=lambda term: frequency[term.folded])
        if 3 <= len(fetching) <= SUBSET_TERMS:
            for left_out in reversed(fetching):
                plans.append(QueryPlan(tuple(t for t in plan.terms if t is not left_out)))
        if 4 <= len(fetching) <= PAIR_SUBSET_TERMS:
            common_first = list(reversed(fetching))
            for first, left_a in enumerate(common_first):
                for left_b in common_first[first + 1 :]:
                    kept = tuple(t for t in plan.terms if t is not left_a and t is not left_b)
                    plans.append(QueryPlan(kept))
        if all(term.path == "literal" for term in fetching):
            plans += [QueryPlan((term,)) for term in fetching]
    return plans


def _accumulate(
    postings: dict[str, _Postings],
    plan: QueryPlan,
    weights: dict[str, float],
    seen: dict[int, _Candidate],
    budget: int,
) -> tuple[list[int], bool]:
    """Row ids to read next (``match="any"``): those whose terms weigh most (the sum of the
    idf of the indexed terms whose postings hold them), at most ``budget``, in id order; and
    whether some were left out (a term's postings cut, or more rows than the budget)."""
    totals: dict[int, float] = {}
    cut = False
    for term in plan.terms:
        if term.path == "literal":
            continue
        entry = postings[term.folded]
        cut = cut or len(entry.ids) >= POSTINGS_PER_TERM
        weight = weights[term.folded]
        for row_id in entry.ids:
            if row_id not in seen:
                totals[row_id] = totals.get(row_id, 0.0) + weight
    if len(totals) <= budget:
        return sorted(totals), cut
    best = heapq.nlargest(budget, totals.items(), key=lambda item: (item[1], -item[0]))
    return sorted(row_id for row_id, _ in best), True


_Candidate = Candidate


def _collect(
    stream: Stream,
    statements: Iterable[tuple[tuple[str, list[object]], tuple[str, ...], bool, int]],
    rows: dict[int, _Candidate],
    body_column: int,
    cap: int,
) -> tuple[bool, bool]:
    """Add candidate rows (with their folded text) to ``rows``, statement by statement, until
    ``cap``. Each statement comes with the folded terms its rows must hold (all of them, or
    any when the flag is set) and the most rows it may add; each text is folded once, for the
    check and the score. Returns (the cap was reached, some statement was cut short)."""
    cut = False
    for (sql, params), needles, any_term, share in statements:
        check = any if any_term else all
        added = 0
        for row in stream(sql, params):
            row_id = int(row[0])
            if row_id in rows:
                continue
            folded = fold_for_search(str(row[body_column]))
            if not check(needle in folded for needle in needles):
                continue
            rows[row_id] = (row, folded)
            added += 1
            if len(rows) >= cap:
                return True, True
            if added >= share:
                cut = True
                break
    return False, cut


def rank_groups(
    stream: Stream,
    plan: QueryPlan,
    statement: Callable[[QueryPlan, list[int] | None], tuple[str, list[object]]],
    *,
    tables: tuple[str, str, str],
    columns: tuple[int, int],
    match: Match,
    order: Order,
    min_score: float,
    window: tuple[int, int],
    cap: int = CANDIDATE_CAP,
    group_key: Callable[[Row], Hashable] | None = None,
    phrase_order: bool = False,
    id_range: tuple[int, int] | None = None,
    siblings: Callable[[list[int]], tuple[str, list[object]]] | None = None,
) -> RankedPage:
    """Score the candidates, group them and cut one page (``window`` = limit, offset).

    ``tables`` are the trigram table, the bigram table and the content table whose rows
    are counted; ``columns`` the group key's and the body's. A group's rows are its best
    :data:`GROUP_ROWS`; ``order="index"`` keeps the scores but orders groups by their first
    row in package order. ``group_key`` replaces the key column (classifications group by
    scheme and code, so that one IPC code in several editions is one group); with it, a
    text that recurs word for word in another unit of the group (the key column: the same line
    in another edition of the code) counts once.
    """
    fts, bigram, content = tables
    key_column, body_column = columns
    stats = read_stats(stream, fts, content)
    last_id = _last_id(stream, content)
    seen: dict[str, int] = {}
    windowed = match == "any" and sum(term.path != "literal" for term in plan.terms) > 1
    postings = {
        term.folded: _postings(
            stream, (fts, bigram), term, stats, last_id, seen=seen, ids_needed=not windowed
        )
        for term in plan.terms
    }
    frequency = {folded: entry.frequency for folded, entry in postings.items()}
    weights = {folded: idf(stats.rows, count) for folded, count in frequency.items()}
    rows: dict[int, _Candidate] = {}
    words = [
        WindowTerm(*entry.match, weights[t.folded], entry.frequency, _cost(t, entry, seen))
        for t in plan.terms
        if (entry := postings[t.folded]).match is not None
    ]
    if windowed:
        words.sort(key=lambda term: term.frequency)
        ids, capped = window_candidates(
            stream,
            words,
            id_range or (1, last_id),
            stats.rows,
            cap * WINDOW_POSTINGS // CANDIDATE_CAP,
            max(cap * WINDOW_ROWS // CANDIDATE_CAP, 1),
        )
        if ids:
            indexed = tuple(t.folded for t in plan.terms if postings[t.folded].match is not None)
            fetch = ((statement(plan, ids), indexed, True, cap),)
            full, _ = _collect(stream, fetch, rows, body_column, cap)
            capped = capped or full
    else:
        first, *subsets = _with_rare_trigrams(_candidate_plans(plan, match, frequency), postings)
        share = max(SUBSET_SHARE, cap // max(len(subsets), 1))
        full, capped = _collect(
            stream,
            (
                (statement(sub, None), sub.folded_terms, False, cap if sub is first else share)
                for sub in (first, *subsets)
            ),
            rows,
            body_column,
            cap,
        )
        if match == "any" and not full:
            for term in plan.terms:
                if len(postings[term.folded].ids) >= FREQUENCY_SAMPLE and term.path != "literal":
                    more = _postings(
                        stream, (fts, bigram), term, stats, last_id, POSTINGS_PER_TERM, seen
                    )
                    postings[term.folded] = _Postings(more.ids, postings[term.folded].frequency)
            budget = min(cap - len(rows), ACCUMULATED_ROWS)
            ids, capped = _accumulate(postings, plan, weights, rows, budget)
            if ids:
                indexed = tuple(t.folded for t in plan.terms if t.path != "literal")
                fetch = ((statement(plan, ids), indexed, True, cap),)
                full, _ = _collect(stream, fetch, rows, body_column, cap)
                capped = capped or full
    score = GroupScoring(plan, weights, stats, (key_column, body_column), group_key, phrase_order)
    scored, matched, raw = score(rows)
    if windowed and siblings is not None and raw:
        best_groups = heapq.nsmallest(COMPLETED_GROUPS, raw, key=lambda e: (-e[0], e[1]))
        held = [entry[1] for _, _, key in best_groups for entry in scored[key]]
        others = [int(row[0]) for row in stream(*siblings(held)) if int(row[0]) not in rows]
        if others:
            indexed = tuple(t.folded for t in plan.terms if postings[t.folded].match is not None)
            fetch = ((statement(plan, others), indexed, True, len(others)),)
            _collect(stream, fetch, rows, body_column, len(rows) + len(others))
            scored, matched, raw = score(rows)
    top = max((entry[0] for entry in raw), default=0.0)
    if order == "relevance":
        raw.sort(key=lambda entry: (-entry[0], entry[1]))
    else:
        raw.sort(key=lambda entry: entry[1])
    groups = []
    for group_score, _, key in raw:
        normalised = round(group_score / top, 4) if top > 0 else 0.0
        if normalised < min_score:
            continue
        order_terms = [term.term for term in plan.terms if term.term in matched[key]]
        groups.append(
            RankedGroup(
                key,
                normalised,
                group_score,
                order_terms,
                [entry[2] for entry in scored[key][:GROUP_ROWS]],
            )
        )
    limit, offset = window
    return RankedPage(groups[offset : offset + limit], len(groups) > offset + limit, capped)
