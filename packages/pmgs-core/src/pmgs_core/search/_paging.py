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
    "GroupReader",
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


class GroupReader(Generic[K, R]):
    """The groups of one candidate stream, read only as far as a caller asks.

    Group ``n`` (0-based, in first-seen order) is *seen* once its first accepted row is read
    and *complete* once group ``n + 1`` is seen or the rows run out: a group's rows are
    contiguous in row order (one run per code or document, ADR 0036), so no later row
    joins it. Rows of a group already holding ``max_rows`` rows, and of the
    groups before ``skip_before``, are passed over without the exact check and not kept.
    """

    __slots__ = ("_accept", "_key", "_max_rows", "_rank", "_rows", "_skip", "keys", "rows")

    def __init__(
        self,
        rows: Iterator[R],
        *,
        key: Callable[[R], K],
        accept: Callable[[R], bool],
        skip_before: int = 0,
        max_rows: int = MAX_MATCHES_PER_GROUP,
    ) -> None:
        self._rows: Iterator[R] | None = rows
        self._key = key
        self._accept = accept
        self._skip = skip_before
        self._max_rows = max_rows
        self._rank: dict[K, int] = {}
        self.keys: list[K] = []
        """Keys of the groups seen, from ``skip_before`` on."""
        self.rows: dict[K, list[R]] = {}

    @property
    def seen(self) -> int:
        """Groups seen so far, counting those before ``skip_before``."""
        return len(self._rank)

    def see(self, count: int) -> bool:
        """Read until ``count`` groups are seen; False when the rows run out first."""
        rows = self._rows
        if rows is None:
            return len(self._rank) >= count
        rank, kept, key, accept = self._rank, self.rows, self._key, self._accept
        skip, max_rows = self._skip, self._max_rows
        while len(rank) < count:
            row = next(rows, None)
            if row is None:
                self._rows = None
                return False
            group = key(row)
            position = rank.get(group)
            if position is not None:
                if position < skip or len(kept[group]) >= max_rows:
                    continue  # nothing more is needed from this group: skip the check
                if accept(row):
                    kept[group].append(row)
                continue
            if not accept(row):
                continue
            rank[group] = len(rank)
            if len(rank) > skip:
                self.keys.append(group)
                kept[group] = [row]
        return True

    def close(self) -> None:
        """Stop reading (the statement is reset now, not when the stream is collected)."""
        rows, self._rows = self._rows, None
        close = getattr(rows, "close", None)
        if close is not None:
            close()


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
    reader: GroupReader[K, R] = GroupReader(
        rows, key=key, accept=accept, skip_before=offset, max_rows=max_rows_per_group
    )
    end = offset + limit
    has_more = reader.see(end + 1)
    reader.close()
    keys = reader.keys[:limit]
    return GroupedPage(keys, {group: reader.rows[group] for group in keys}, has_more)
