"""A search that does not dead-end (issue 39, ADR 0033): what to add when a page is empty.

``search_pmgs(..., fallback=True)`` (the CLI, the MCP tool and the viewer ask for it) runs the
search as asked and then, from facts only:

* **the query is a code** in any notation (``G06F 3/048``, ``5H050AA01``) that the release
  holds: ``code_matches`` names each lookup that answers it (scheme, canonical code,
  edition, its status and viewer path);
* **the exact phrase found nothing** (every term in one text, on every page type): the pages
  are replaced by the any-word search (``match="any"``, ``order="relevance"``) of the words the
  phrase is written with (``_words``), and ``fallback`` says so and names the words;
* **still nothing, in one language**: the same query in the other language (ja ↔ en) is run for
  one page of each type, and ``other_language`` says how many hits it holds.

Nothing is guessed: the words are the query's own, a code is listed only when the release has
it, and counts are of real hits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Final

from pmgs_core.errors import PMGSQueryError
from pmgs_core.records import (
    ClassificationSearchPage,
    CodeMatch,
    CombinedSearchPage,
    DocumentSearchPage,
    OtherLanguage,
    SearchFallback,
)
from pmgs_core.search._run import SearchRequest
from pmgs_core.search._words import Held, split_words

__all__ = ["OTHER_LANGUAGE_PROBE", "code_matches", "is_empty", "no_dead_end"]

OTHER_LANGUAGE_PROBE: Final = 20
"""Hits of each type read in the other language (``at_least`` when more follow)."""

_CODE_SCHEMES: Final = ("fi", "fterm", "ipc")
_MAX_CODE_CHARS: Final = 40
"""No code of any notation is longer (fixed-width FI with a file index is ~20)."""

RunPage = Callable[[SearchRequest, int, int], CombinedSearchPage]
"""Runs one combined search: (request, classification offset, document offset)."""
Lookup = Callable[[str, str], Any]
"""``lookup(scheme, code)`` of the store (a classification record)."""


def _pages(page: CombinedSearchPage) -> list[ClassificationSearchPage | DocumentSearchPage]:
    by_type = page["results_by_type"]
    return [typed for typed in (by_type.get("classification"), by_type.get("document")) if typed]


def is_empty(page: CombinedSearchPage) -> bool:
    """True when no page of the answer holds a hit."""
    return not any(typed["results"] for typed in _pages(page))


def code_matches(query: str, schemes: Sequence[str], lookup: Lookup) -> list[CodeMatch]:
    """The codes of ``schemes`` that ``query`` is written as and the release holds."""
    from pmgs_core.notation import InvalidCodeError, parse_code

    text = query.strip()
    if not text or len(text) > _MAX_CODE_CHARS:
        return []
    found: list[CodeMatch] = []
    for scheme in _CODE_SCHEMES:
        if scheme not in schemes:
            continue
        try:
            parse_code(scheme, text)
        except (InvalidCodeError, ValueError):
            continue
        try:
            record = lookup(scheme, text)
        except PMGSQueryError:
            continue  # read as a code but not answerable as one (e.g. two revisions at once)
        if record["match_status"] == "not_found":
            continue
        found.append(
            {
                "scheme": scheme,
                "code": record["code"],
                "edition": record["edition"],
                "match_status": record["match_status"],
                "viewer_path": record.get("viewer_path"),
            }
        )
    return found


def _any_words(
    request: SearchRequest, held: Held | None
) -> tuple[SearchRequest, SearchFallback] | None:
    """The any-word request of an exact one, when it can find more (several words)."""
    from pmgs_core.search._plan import MAX_TERMS, plan_words

    split = split_words(request.query, held)
    words = split.words[:MAX_TERMS]
    plan = plan_words(words)
    if plan is None or request.plan is None:
        return None
    if len(plan.terms) < 2 and plan.folded_terms == request.plan.folded_terms:
        return None  # one word, the same as asked: the any-word search finds the same
    fallback: SearchFallback = {
        "reason": "no_exact_match",
        "words": [term.term for term in plan.terms],
        "word_split": split.method,
        "match": "any",
        "order": "relevance",
    }
    any_request = replace(
        request, plan=plan, match="any", order="relevance", word_split=split.method
    )
    return any_request, fallback


def _other_language(run: RunPage, request: SearchRequest) -> OtherLanguage | None:
    """One page of each type in the other language; None when it holds nothing either."""
    other = "en" if request.language == "ja" else "ja"
    probe = run(replace(request, language=other, limit=OTHER_LANGUAGE_PROBE), 0, 0)
    by_type = probe["results_by_type"]
    classifications = by_type.get("classification")
    documents = by_type.get("document")
    counts = (
        len(classifications["results"]) if classifications else 0,
        len(documents["results"]) if documents else 0,
    )
    if not any(counts):
        return None
    return {
        "language": other,
        "classification_count": counts[0],
        "document_count": counts[1],
        "at_least": any(typed["has_more"] for typed in _pages(probe)),
    }


def no_dead_end(
    page: CombinedSearchPage,
    request: SearchRequest,
    offsets: tuple[int, int],
    run: RunPage,
    lookup: Lookup,
    held: Held | None = None,
) -> CombinedSearchPage:
    """The answer with ``code_matches``, ``fallback`` and ``other_language`` (module doc).

    A later page (an offset above 0) of an exact search that found nothing at all is the
    any-word search's later page too, so that ``next_offset`` pages through the fallback.
    """
    if request.plan is None:
        return page
    codes = code_matches(request.query, request.schemes or _CODE_SCHEMES, lookup)
    if codes:
        page["code_matches"] = codes
    if codes or not is_empty(page):
        return page  # a code is answered by its lookup, not by the words of its notation
    if request.match == "all" and (offsets == (0, 0) or is_empty(run(request, 0, 0))):
        switched = _any_words(request, held)
        if switched is not None:
            any_request, fallback = switched
            any_page = run(any_request, *offsets)
            any_page["fallback"] = fallback
            page, request = any_page, any_request
    if is_empty(page) and offsets == (0, 0):
        other = _other_language(run, request)
        if other is not None:
            page["other_language"] = other
    return page
