"""Lexical search, end to end: plan, folding, candidate SQL, grouping and paging.

The store checks its arguments and calls one function of this package per query. Which index
answers a term of 1, 2 or 3+ characters, the exact check of every candidate and paging that
groups before it pages are ADR 0004's (with 0008); relevance order is ADR 0012's (``_rank``);
one hit per code across IPC editions and interleaved schemes are ADR 0022's (``_codes``).
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from pmgs_core.folding import (
    bigram_tokens,
    fold_for_search,
    index_bigrams,
    is_indexed_bigram,
)

if TYPE_CHECKING:
    from pmgs_core.search._context import code_context, code_titles
    from pmgs_core.search._fallback import code_matches, is_empty, no_dead_end
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
        plan_words,
    )
    from pmgs_core.search._rank import CANDIDATE_CAP, RANKED_INDEX, rank_groups
    from pmgs_core.search._run import (
        SearchReader,
        SearchRequest,
        candidate_sql,
        search_classifications,
        search_combined,
        search_documents,
    )
    from pmgs_core.search._text import mime_type, search_text
    from pmgs_core.search._words import (
        Held,
        WordSplit,
        WordSplitMethod,
        analyser_available,
        any_plan,
        split_words,
    )

_QUERY_SIDE = ("_plan", "_paging", "_run", "_rank", "_text", "_context", "_words", "_fallback")
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
    "RANKED_INDEX",
    "GroupedPage",
    "Held",
    "QueryPlan",
    "SearchReader",
    "SearchRequest",
    "TermPlan",
    "WordSplit",
    "WordSplitMethod",
    "analyser_available",
    "any_plan",
    "bigram_tokens",
    "candidate_sql",
    "check_query",
    "code_context",
    "code_matches",
    "code_titles",
    "collect_groups",
    "combine_modes",
    "excerpt",
    "fold_for_search",
    "index_bigrams",
    "is_empty",
    "is_indexed_bigram",
    "mime_type",
    "no_dead_end",
    "plan_query",
    "plan_words",
    "rank_groups",
    "search_classifications",
    "search_combined",
    "search_documents",
    "search_text",
    "split_words",
]
