"""Lexical search: which index answers which term, and grouped paging that stops early.

How a query is answered (see also ``docs/decisions/0004-store-and-search.md``):

* The query is split on whitespace (ASCII and the ideographic space); every term must match
  (AND). An empty or blank query answers an empty page and runs no SQL.
* A term of 3 or more characters is matched by the FTS5 trigram tables (``text_fts``,
  ``document_text_fts``): they keep no positions (``detail=none``), so the index is asked for
  the rows holding trigrams that cover the term (every third one and the last), and the check
  below keeps the rows where the term really occurs. The trigram tokenizer ignores letter
  case; when NFKC changes the term (full-width ``ＡＢＣ``), the folded spelling is tried as
  well.
* A term of 2 characters (after NFKC + casefold) is matched by the bigram tables
  (``text_bigram``, ``document_text_bigram``) that pmgs-build fills with
  :func:`pmgs_core.bigram_tokens`: one token per distinct bigram of a row, so a 2-character
  term is exactly one token and the index answer is exact. Pairs with ASCII punctuation or a
  space are not indexed (:func:`pmgs_core.is_indexed_bigram`); such terms, and terms that
  NFKC lengthens (``㈱`` → ``(株)``), take the literal path or the AND of their indexed
  bigrams, a superset that the check below trims.
* A term of 1 character has no index; if the query has only such terms, the text table is
  scanned literally (``instr``) in row order, stopping as soon as the page is full.
* Every candidate row is checked again in Python: each term, NFKC + casefolded, must occur in
  the folded row text. For index answers this is a cheap guard; for mixed terms it is what
  applies the terms no index answered.

Paging groups before it pages: hits are grouped per classification (concept) or per document
and one group occupies one slot, so a code with fifty matching lines does not push others off
the page. Groups are ordered by their first matching row (row order = package order), and the
candidate rows are read in that order and *abandoned* once ``offset + limit + 1`` distinct
groups have been seen: a common phrase with 74,000 matching lines costs only the rows up to
the end of the requested page. The price is that totals are not counted (``total_is_exact``
is false and no total is reported) and that each hit shows the matching lines seen before the
scan stopped (at most :data:`MAX_MATCHES_PER_GROUP`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final, Generic, Literal, TypeVar

from pmgs_core.records import SearchMode
from pmgs_core.schema import bigram_tokens, fold_for_search

__all__ = [
    "MAX_MATCHES_PER_GROUP",
    "MAX_QUERY_CHARS",
    "MAX_TERMS",
    "GroupedPage",
    "QueryPlan",
    "TermPlan",
    "collect_groups",
    "combine_modes",
    "excerpt",
    "plan_query",
]

MAX_QUERY_CHARS: Final = 512
"""Longest query accepted; longer is ``INVALID_QUERY`` (no PMGS phrase comes near it)."""

MAX_TERMS: Final = 16
"""Most whitespace-separated terms in one query."""

MAX_MATCHES_PER_GROUP: Final = 3
"""Matching lines shown per classification or document in a search hit."""

EXCERPT_BEFORE: Final = 60
EXCERPT_AFTER: Final = 140
SHORT_TEXT: Final = 300
"""Texts up to this length are returned whole as the excerpt; longer ones are windowed."""

TermPath = Literal["trigram", "bigram", "literal"]

_MODE_BY_PATH: Final[dict[TermPath, SearchMode]] = {
    "trigram": "sqlite_fts5_trigram_lexical",
    "bigram": "sqlite_fts5_bigram_lexical",
    "literal": "sqlite_literal_substring_lexical",
}


@dataclass(frozen=True, slots=True)
class TermPlan:
    """One term: as typed, folded for checking, and the path that answers it."""

    term: str
    folded: str
    path: TermPath
    bigram_tokens: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class QueryPlan:
    """Everything the store needs to run a query against either kind of content."""

    terms: tuple[TermPlan, ...]

    @property
    def folded_terms(self) -> tuple[str, ...]:
        return tuple(term.folded for term in self.terms)

    @property
    def search_mode(self) -> SearchMode:
        """One path → its name; terms answered by different paths → ``mixed_lexical``."""
        paths = {term.path for term in self.terms}
        if len(paths) == 1:
            return _MODE_BY_PATH[next(iter(paths))]
        return "mixed_lexical"

    @property
    def trigram_match(self) -> str | None:
        """The FTS5 MATCH expression of the trigram terms, if any: per term, the AND of
        trigrams covering it (each spelling: as typed and NFKC), terms joined by AND.

        The trigram tables keep no positions (``detail=none``), so a term cannot be a phrase;
        the candidates are the rows holding all of its trigrams and :meth:`matches` keeps
        those where the term occurs.
        """
        parts = []
        for term in self.terms:
            if term.path != "trigram":
                continue
            variants = dict.fromkeys([term.term, unicodedata.normalize("NFKC", term.term)])
            groups = [_trigram_and(variant) for variant in variants if len(variant) >= 3]
            parts.append(groups[0] if len(groups) == 1 else "(" + " OR ".join(groups) + ")")
        return " AND ".join(parts) if parts else None

    @property
    def bigram_match(self) -> str | None:
        """The FTS5 MATCH expression of the bigram terms (AND of quoted bigrams), if any."""
        tokens = dict.fromkeys(
            token for term in self.terms if term.path == "bigram" for token in term.bigram_tokens
        )
        return " AND ".join(_fts_phrase(token) for token in tokens) if tokens else None

    @property
    def literal_needles(self) -> tuple[str, ...]:
        """Spellings of the first literal term for the SQL ``instr`` scan (raw text is
        not folded in SQL, so the usual case and width variants are tried)."""
        term = next(term for term in self.terms if term.path == "literal")
        variants = dict.fromkeys(
            [
                term.term,
                term.folded,
                term.term.upper(),
                term.term.lower(),
                unicodedata.normalize("NFKC", term.term),
            ]
        )
        return tuple(variant for variant in variants if variant)

    def matches(self, body: str) -> bool:
        """The final check every candidate row passes: all folded terms occur in it."""
        folded = fold_for_search(body)
        return all(term in folded for term in self.folded_terms)


def _trigram_and(text: str) -> str:
    """The AND of trigrams that cover ``text``: every third one and the last (overlapping
    windows add no rows the check would keep, only doclists to read)."""
    starts = [*range(0, len(text) - 2, 3), len(text) - 3]
    grams = dict.fromkeys(text[start : start + 3] for start in starts)
    joined = " AND ".join(_fts_phrase(gram) for gram in grams)
    return joined if len(grams) == 1 else "(" + joined + ")"


def _fts_phrase(text: str) -> str:
    # An FTS5 string: double quotes doubled; nothing else inside is syntax.
    return '"' + text.replace('"', '""') + '"'


def plan_query(query: str) -> QueryPlan | None:
    """Split and classify a query; None when it has no terms (blank query).

    The caller has already checked the type and the length limits.
    """
    seen: dict[str, None] = {}
    for raw in query.split():
        seen.setdefault(raw, None)
    if not seen:
        return None
    terms = []
    for raw in seen:
        folded = fold_for_search(raw)
        tokens = tuple(bigram_tokens(raw).split())
        if len(raw) >= 3:
            terms.append(TermPlan(raw, folded, "trigram"))
        elif len(folded) >= 2 and tokens:
            terms.append(TermPlan(raw, folded, "bigram", tokens))
        else:
            terms.append(TermPlan(raw, folded, "literal"))
    return QueryPlan(tuple(terms))


def combine_modes(modes: Iterable[SearchMode]) -> SearchMode:
    """The mode of a combined search: one mode if all parts agree, else ``mixed_lexical``."""
    distinct = {mode for mode in modes if mode != "none"}
    if not distinct:
        return "none"
    if len(distinct) == 1:
        return next(iter(distinct))
    return "mixed_lexical"


def excerpt(body: str, folded_terms: tuple[str, ...], *, whole_up_to: int = SHORT_TEXT) -> str:
    """A verbatim window of ``body`` around the first match (the whole body when short).

    The window is a plain substring: nothing is added or rewritten, so it stays evidence.
    Positions are found in the folded text; NFKC rarely changes lengths, and a window that
    is off by a few characters is still the right neighbourhood.
    """
    if len(body) <= whole_up_to:
        return body
    folded = fold_for_search(body)
    position = -1
    for term in folded_terms:
        position = folded.find(term)
        if position >= 0:
            break
    position = max(0, min(position, len(body) - 1))
    start = max(0, position - EXCERPT_BEFORE)
    end = min(len(body), position + EXCERPT_AFTER)
    return body[start:end]


K = TypeVar("K")
R = TypeVar("R")


@dataclass(slots=True)
class GroupedPage(Generic[K, R]):
    """The groups of one page, in first-seen order, with the rows seen for each."""

    keys: list[K] = field(default_factory=list)
    rows: dict[K, list[R]] = field(default_factory=dict)
    has_more: bool = False


def collect_groups(
    rows: Iterator[R],
    *,
    key: Callable[[R], K],
    accept: Callable[[R], bool],
    offset: int,
    limit: int,
    max_rows_per_group: int = MAX_MATCHES_PER_GROUP,
) -> GroupedPage[K, R]:
    """Group candidate rows and keep the groups ``offset … offset+limit-1``, stopping early.

    ``rows`` must arrive in the order groups are ranked by (row order); reading stops as soon
    as one group beyond the page is seen, which is also how ``has_more`` is known without
    counting everything.
    """
    page: GroupedPage[K, R] = GroupedPage()
    rank: dict[K, int] = {}
    end = offset + limit
    for row in rows:
        group = key(row)
        position = rank.get(group)
        if position is not None and (
            position < offset or len(page.rows[group]) >= max_rows_per_group
        ):
            continue  # nothing more is needed from this group: skip the check
        if not accept(row):
            continue
        if position is None:
            position = len(rank)
            if position >= end:
                page.has_more = True
                break
            rank[group] = position
            if position < offset:
                continue
            page.keys.append(group)
            page.rows[group] = []
        page.rows[group].append(row)
    return page
