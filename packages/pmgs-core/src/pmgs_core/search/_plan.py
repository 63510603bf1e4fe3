"""The plan of a query: which index answers each term, and the MATCH text it is asked with.

A term of 3+ characters goes to the trigram tables, one of 2 to the bigram tables (tokens cut
by :func:`pmgs_core.folding.bigram_tokens`, exactly as the builder cut the rows), one
of 1 to a literal scan; :meth:`QueryPlan.matches` is the exact check every candidate passes.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from pmgs_core.errors import PMGSQueryError
from pmgs_core.folding import bigram_tokens, fold_for_search
from pmgs_core.records import SearchIndex, SearchMode
from pmgs_core.storable import is_text

__all__ = [
    "MAX_QUERY_CHARS",
    "MAX_TERMS",
    "QueryPlan",
    "TermPlan",
    "check_query",
    "covering_trigrams",
    "plan_query",
    "plan_words",
]

MAX_QUERY_CHARS: Final = 512
"""Longest query accepted; longer is ``INVALID_QUERY`` (no PMGS phrase comes near it)."""

MAX_TERMS: Final = 16
"""Most whitespace-separated terms in one query."""

TermPath = Literal["trigram", "bigram", "literal"]

_INDEX_BY_PATH: Final[dict[TermPath, SearchIndex]] = {
    "trigram": "fts5_trigram",
    "bigram": "fts5_bigram",
    "literal": "substring_scan",
}
EMPTY_QUERY_MODE: Final[SearchMode] = "sqlite_literal_substring_lexical"
"""The route of a query without terms: it has no term of 3 characters, so by the contract's
rule it is not the trigram route (nothing runs; the page is empty, ``index`` is ``none``)."""


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
    trigram_overrides: tuple[tuple[str, str], ...] = ()
    """(folded term, MATCH text) pairs replacing a term's AND of covering trigrams; the
    ranked path asks long terms with their rarest trigrams only (``_rank``)."""

    @property
    def folded_terms(self) -> tuple[str, ...]:
        return tuple(term.folded for term in self.terms)

    @property
    def search_mode(self) -> SearchMode:
        """The contract's route: trigram when every term has 3+ characters, else (a 1 or 2
        character term anywhere in the query) the literal substring match."""
        if all(term.path == "trigram" for term in self.terms):
            return "sqlite_fts5_trigram_lexical"
        return "sqlite_literal_substring_lexical"

    @property
    def index(self) -> SearchIndex:
        """The index every term was answered from, or ``mixed`` when they differ."""
        indexes = {_INDEX_BY_PATH[term.path] for term in self.terms}
        return next(iter(indexes)) if len(indexes) == 1 else "mixed"

    @property
    def trigram_match(self) -> str | None:
        """The FTS5 MATCH expression of the trigram terms, if any: per term, the AND of
        trigrams covering it (each spelling: as typed and NFKC), terms joined by AND.

        The trigram tables keep no positions (``detail=none``), so a term cannot be a phrase;
        the candidates are the rows holding all of its trigrams and :meth:`matches` keeps
        those where the term occurs.
        """
        parts = []
        overrides = dict(self.trigram_overrides)
        for term in self.terms:
            if term.path != "trigram":
                continue
            if term.folded in overrides:
                parts.append(overrides[term.folded])
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

    @property
    def unproven_terms(self) -> tuple[str, ...]:
        """The folded terms a candidate row of :func:`~pmgs_core.search.candidate_sql` may
        still lack, so that the exact check looks for these only (ADR 0036).

        A bigram term whose one token is the folded term itself is proven by the index: the
        bigram tables hold a token for a row exactly when the row's folded text holds that
        pair (the builder cut it with :func:`~pmgs_core.folding.bigram_tokens` too), and
        every candidate statement asks the bigram tables for all the bigram terms. Trigram
        terms are not (the trigram index is of the raw text, without positions), nor
        literal ones (the ``instr`` scan is of raw spellings)."""
        return tuple(
            term.folded
            for term in self.terms
            if term.path != "bigram" or term.bigram_tokens != (term.folded,)
        )

    def candidate_check(self) -> Callable[[str], bool]:
        """:meth:`matches` for the rows of a candidate statement: the unproven terms only,
        and no folding at all when every term is proven."""
        terms = self.unproven_terms
        if not terms:
            return _always
        if len(terms) == 1:
            (term,) = terms
            return lambda body: term in fold_for_search(body)

        def check(body: str) -> bool:
            folded = fold_for_search(body)
            return all(term in folded for term in terms)

        return check


def _always(body: str) -> bool:
    return True


def covering_trigrams(text: str) -> list[str]:
    """The distinct trigrams that cover ``text``: every third one and the last (overlapping
    windows add no rows the check would keep, only doclists to read)."""
    starts = [*range(0, len(text) - 2, 3), len(text) - 3]
    return list(dict.fromkeys(text[start : start + 3] for start in starts))


def _trigram_and(text: str) -> str:
    """The AND of the trigrams that cover ``text`` (:func:`covering_trigrams`)."""
    grams = covering_trigrams(text)
    joined = " AND ".join(_fts_phrase(gram) for gram in grams)
    return joined if len(grams) == 1 else "(" + joined + ")"


def _fts_phrase(text: str) -> str:
    # An FTS5 string: double quotes doubled; nothing else inside is syntax.
    return '"' + text.replace('"', '""') + '"'


def plan_query(query: str) -> QueryPlan | None:
    """Split and classify a query; None when it has no terms (blank query).

    The caller has already checked the type and the length limits.
    """
    return plan_words(query.split())


def plan_words(words: Sequence[str]) -> QueryPlan | None:
    """The plan of a list of terms (each once, in order); None when there are none."""
    seen = dict.fromkeys(words)
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


def check_query(query: object) -> QueryPlan | None:
    """The plan of a query argument, or ``INVALID_QUERY`` before any SQL runs.

    Checked here rather than by the store because the limits are the planner's: a longer
    query or more terms would only make MATCH expressions no index answers quickly.
    """
    if not isinstance(query, str):
        raise PMGSQueryError("INVALID_QUERY", "query must be a string")
    if not is_text(query):
        # A NUL ends the MATCH text inside SQLite and a lone surrogate cannot be encoded for
        # it at all: either would reach the client as DATABASE_ERROR, not as a bad query.
        raise PMGSQueryError(
            "INVALID_QUERY", "query must be text without NUL characters or lone surrogates"
        )
    if len(query) > MAX_QUERY_CHARS:
        raise PMGSQueryError(
            "INVALID_QUERY",
            f"query is longer than {MAX_QUERY_CHARS} characters",
            {"max_chars": MAX_QUERY_CHARS},
        )
    plan = plan_query(query)
    if plan is not None and len(plan.terms) > MAX_TERMS:
        raise PMGSQueryError(
            "INVALID_QUERY", f"query has more than {MAX_TERMS} terms", {"max_terms": MAX_TERMS}
        )
    return plan
