"""Lexical search, end to end: plan, folding, candidate SQL, grouping and paging.

The store checks its arguments and calls one function of this package per query; the
package's modules are: ``_folding`` (how text is folded and cut into bigrams, shared with the
index builder), ``_plan`` (which index answers each term), ``_run`` (the candidate statement
and the page records), ``_paging`` (grouping that stops early, excerpts), ``_rank``
(relevance order: BM25 over a bounded candidate set, ADR 0012) and ``_text`` (the
document-database ``search_text`` shape over the ranked path), ``_codes`` (one hit per
code, schemes interleaved: ADR 0022) and ``_context`` (the ancestors shown beside a code).

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

from importlib import import_module
from typing import TYPE_CHECKING, Any

from pmgs_core.search._folding import (
    bigram_tokens,
    fold_for_search,
    index_bigrams,
    is_indexed_bigram,
)

if TYPE_CHECKING:
    from pmgs_core.search._context import code_context, code_titles
    from pmgs_core.search._paging import (
        MAX_MATCHES_PER_GROUP,
        GroupedPage,
        collect_groups,
        combine_modes,
        excerpt,
    )
    from pmgs_core.search._plan import (
        MAX_QUERY_CHARS,
        MAX_TERMS,
        QueryPlan,
        TermPlan,
        check_query,
        plan_query,
    )
    from pmgs_core.search._rank import CANDIDATE_CAP, RANKED_MODE, rank_groups
    from pmgs_core.search._run import (
        SearchReader,
        SearchRequest,
        candidate_sql,
        search_classifications,
        search_combined,
        search_documents,
    )
    from pmgs_core.search._text import mime_type, search_text

_QUERY_SIDE = ("_plan", "_paging", "_run", "_rank", "_text", "_context")
"""Modules loaded on the first search. Only the folding is loaded with the package (the index
builder and the schema need it), so that a cold ``pmgs lookup`` does not pay for the query
side; ``_run`` imports the other two, so loading all three costs nothing extra."""


def __getattr__(name: str) -> Any:
    for module_name in _QUERY_SIDE:
        module = import_module(f"{__name__}.{module_name}")
        if name in module.__all__:
            value = getattr(module, name)
            globals()[name] = value
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CANDIDATE_CAP",
    "MAX_MATCHES_PER_GROUP",
    "MAX_QUERY_CHARS",
    "MAX_TERMS",
    "RANKED_MODE",
    "GroupedPage",
    "QueryPlan",
    "SearchReader",
    "SearchRequest",
    "TermPlan",
    "bigram_tokens",
    "candidate_sql",
    "check_query",
    "code_context",
    "code_titles",
    "collect_groups",
    "combine_modes",
    "excerpt",
    "fold_for_search",
    "index_bigrams",
    "is_indexed_bigram",
    "mime_type",
    "plan_query",
    "rank_groups",
    "search_classifications",
    "search_combined",
    "search_documents",
    "search_text",
]
