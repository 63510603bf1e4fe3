"""Grouped paging that stops early, and the excerpt shown for each matching line.

Candidate rows arrive in package order; :func:`collect_groups` folds them into one slot per
classification or document and stops reading as soon as one group beyond the page is seen,
which is what keeps a common phrase as cheap as a rare one (see the package docstring).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

from pmgs_core.folding import fold_for_search
from pmgs_core.records import SearchIndex, SearchMode
from pmgs_core.search._plan import EMPTY_QUERY_MODE

__all__ = [
    "MAX_MATCHES_PER_GROUP",
    "GroupedPage",
    "collect_groups",
    "combine_indexes",
    "combine_modes",
    "excerpt",
]

MAX_MATCHES_PER_GROUP: Final = 3
"""Matching lines shown per classification or document in a search hit."""

EXCERPT_BEFORE: Final = 60
EXCERPT_AFTER: Final = 140
SHORT_TEXT: Final = 300
"""Texts up to this length are returned whole as the excerpt; longer ones are windowed."""


def combine_modes(modes: Iterable[SearchMode]) -> SearchMode:
    """The mode of a combined search: one mode if all parts agree, else ``mixed_lexical``
    (the one place the contract uses it)."""
    distinct = set(modes)
    if not distinct:
        return EMPTY_QUERY_MODE
    if len(distinct) == 1:
        return next(iter(distinct))
    return "mixed_lexical"


def combine_indexes(indexes: Iterable[SearchIndex]) -> SearchIndex:
    """The index of a combined search: the parts' one index, else ``mixed``."""
    distinct = set(indexes) - {"none"}
    if not distinct:
        return "none"
    return next(iter(distinct)) if len(distinct) == 1 else "mixed"


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
