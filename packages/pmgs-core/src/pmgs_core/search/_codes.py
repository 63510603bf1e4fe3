"""Classification pages a reader can use: one hit per code, every scheme on the first page.

Two things made the plain grouping (one hit per concept, in package order) hard to read
(``docs/decisions/0022-*.md``):

* **Editions.** IPC is stored once per edition (8U, 8B, 7, 7E, 6, 5, 4), so a code matched
  in five editions was five hits. Here the group key is (scheme, code): the code is one hit,
  its ``editions`` are the editions whose texts match (preferred edition first, the order of
  :data:`pmgs_core.schema.IPC_EDITIONS`), the hit names the preferred edition, and a text
  that is the same word for word in several editions is one match listing those editions.
* **Schemes.** The package holds F-term, then IPC (all editions), then FI; package order
  put eighty IPC hits before the first FI one. When several schemes are asked for, each is
  read on its own and the hits are interleaved, one of each scheme in turn (in the order of
  ``schemes``), until a scheme runs out: the page says so with ``scheme_merge``.

Paging stays exact without reading ``offset + limit`` groups of every scheme: the schemes are
interleaved as they are read (:func:`index_groups`), so a scheme is read as far as the hits
it puts on the page, one group more to know they are complete, and the page ends as soon as
one hit beyond it is seen (``has_more``). Which hits are on a page never depends on how far
a scheme is read; which matching lines a hit shows would, if a code's texts were split
across the package (they are not: the builder writes each code's lines as its source lists
them, one run per code and language; ADR 0036 checks it at full scale).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from pmgs_core.folding import fold_for_search
from pmgs_core.records import ClassificationMatch, ClassificationSearchHit, SchemeMerge, SourceRef
from pmgs_core.schema import IPC_EDITIONS, SCHEMES
from pmgs_core.search._paging import MAX_MATCHES_PER_GROUP, GroupReader, excerpt
from pmgs_core.search._rank import RankedPage

__all__ = [
    "CLASSIFICATION_COLUMNS",
    "TEXT_RANGES_KEY",
    "CodeGroup",
    "SchemeMerge",
    "classification_hit",
    "code_key",
    "edition_statement",
    "index_groups",
    "interleave",
    "preferred_first",
    "ranked_groups",
    "recorded_text_ranges",
    "shared_reads",
    "text_range",
    "text_ranges",
    "with_editions",
]

Row = tuple[Any, ...]
Stream = Callable[[str, Sequence[object]], Iterator[Row]]
T = TypeVar("T")

CLASSIFICATION_COLUMNS: Final = (
    "x.id, x.language, x.text_type, x.line, x.body, x.source_file_id, x.locator, "
    "c.id, c.scheme, c.edition, c.code, c.kind, c.status, r.version"
)
"""Columns of every classification candidate row (the indexes below refer to them)."""

_BODY, _SCHEME, _EDITION, _CODE = 4, 8, 9, 10
_EDITION_RANK: Final = {edition: rank for rank, edition in enumerate(IPC_EDITIONS)}


def code_key(row: Row) -> Hashable:
    """The group of a classification row: its scheme and code (editions fold together)."""
    return (str(row[_SCHEME]), str(row[_CODE]))


@dataclass(slots=True)
class CodeGroup:
    """One hit before it becomes a record: its rows, and its score on the ranked path."""

    rows: list[Row]
    score: float | None = None
    matched_terms: list[str] = field(default_factory=list)


def interleave(lists: Sequence[list[T]]) -> list[T]:
    """One item of each list in turn; a list that runs out drops out of the turn."""
    merged: list[T] = []
    for index in range(max((len(items) for items in lists), default=0)):
        merged.extend(items[index] for items in lists if index < len(items))
    return merged


def index_groups(
    stream: Stream,
    accept: Callable[[Row], bool],
    statements: Sequence[tuple[str, list[object]]],
    window: tuple[int, int],
) -> tuple[list[CodeGroup], bool]:
    """The page's groups in package order, one statement per scheme (module doc).

    With one statement the page is read from ``offset`` on; with several, the schemes are
    interleaved as they are read: a scheme is read only as far as the groups it puts on the
    page (one more, to know they are complete), so a page of 20 over three schemes reads about
    seven groups of each, not 21 (ADR 0036).
    """
    limit, offset = window
    end = offset + limit
    readers = [
        GroupReader(
            stream(sql, params),
            key=code_key,
            accept=accept,
            skip_before=offset if len(statements) == 1 else 0,
        )
        for sql, params in statements
    ]
    try:
        if len(readers) == 1:
            reader = readers[0]
            has_more = reader.see(end + 1)
            return [CodeGroup(reader.rows[key]) for key in reader.keys[:limit]], has_more
        merged: list[tuple[GroupReader[Hashable, Row], int]] = []
        turn = 0
        active = readers
        while active and len(merged) <= end:
            still = []
            for reader in active:
                if len(merged) > end:
                    break
                if reader.see(turn + 1):  # a scheme that runs out drops out of the turn
                    merged.append((reader, turn))
                    still.append(reader)
            active = still
            turn += 1
        page = merged[offset:end]
        for reader, index in page:
            reader.see(index + 2)  # the group is complete once the next one is seen
        return [CodeGroup(reader.rows[reader.keys[index]]) for reader, index in page], len(
            merged
        ) > end
    finally:
        for reader in readers:
            reader.close()


def ranked_groups(
    pages: Sequence[RankedPage], min_score: float, window: tuple[int, int]
) -> tuple[list[CodeGroup], bool]:
    """The page's groups from every scheme's whole ranking (``pages``, one per scheme).

    Scores are normalised once over all schemes (the best hit of the query is 1.0, as with
    one scheme: the BM25 statistics are those of all classification texts, so raw scores of
    different schemes compare), then ``min_score`` applies and the schemes are interleaved.
    """
    top = max((group.raw_score for page in pages for group in page.groups), default=0.0)
    lists = []
    for page in pages:
        kept = []
        for group in page.groups:
            score = round(group.raw_score / top, 4) if top > 0 else 0.0
            if score >= min_score:
                kept.append(CodeGroup(group.rows, score, group.matched_terms))
        lists.append(kept)
    merged = interleave(lists)
    limit, offset = window
    return merged[offset : offset + limit], len(merged) > offset + limit


_RANGES: dict[tuple[str, str, str, str], tuple[int, int]] = {}
"""``text_range`` answers of this process, by (database file, logical digest, scheme,
language): a database is read-only and content-addressed, so they never go stale."""
_EMPTY_RANGE: Final = (1, 0)
"""A range no row id lies in (a scheme without texts in that language)."""
_RECORDED: set[tuple[str, str]] = set()
"""Databases (file, logical digest) whose build recorded its ranges: a language it left out
has no texts."""
TEXT_RANGES_KEY: Final = "text_ranges"
"""The metadata key of the build's recorded ranges (:func:`recorded_text_ranges`)."""


def text_range(
    stream: Stream, scheme: str, language: str, memo: dict[str, Any] | None = None
) -> tuple[int, int]:
    """The first and last text row id of ``scheme`` in ``language``: a bound every candidate
    of that scheme lies in, so that its statement seeks past the other schemes' rows.

    The package stores F-term, IPC, then FI; without the bound, FI's first hit costs reading
    every earlier match. Read once per database and process through the concept index
    (reference-only concepts included: a wider range stays a bound); a database without a
    logical digest is read each time.
    """
    return text_ranges(stream, [scheme], language, memo)[scheme]


def text_ranges(
    stream: Stream, schemes: list[str], language: str, memo: dict[str, Any] | None = None
) -> dict[str, tuple[int, int]]:
    """:func:`text_range` of each scheme. The database is identified once for all of them,
    and once per store with the store's ``memo``: no statement at all once it is known."""
    identity: tuple[str, str] | None = None if memo is None else memo.get("identity")
    if identity is None:
        identity = _identity(stream)
        if memo is not None:
            memo["identity"] = identity
    path, digest = identity
    return {scheme: _scheme_range(stream, (path, digest, scheme, language)) for scheme in schemes}


def _identity(stream: Stream) -> tuple[str, str]:
    """The database file and its logical digest ('' when it has none); the build's recorded
    ranges (``metadata.text_ranges``), when it wrote them, are put in ``_RANGES`` under that
    identity, so that no process scans for them (ADR 0041)."""
    digest = ""
    recorded = ""
    for key, value in stream(
        "SELECT key, value FROM metadata WHERE key IN ('logical_digest', ?)", [TEXT_RANGES_KEY]
    ):
        if key == "logical_digest":
            digest = str(value)
        else:
            recorded = str(value)
    path = ""
    for row in stream("PRAGMA database_list", []):
        if row[1] == "main":
            path = str(row[2])
    if digest and recorded:
        ranges = {
            (scheme, language): (int(first), int(last))
            for language, schemes in json.loads(recorded).items()
            for scheme, (first, last) in schemes.items()
        }
        if _ends(ranges.values()) == next(stream("SELECT min(id), max(id) FROM text", [])):
            _RECORDED.add((path, digest))
            for (scheme, language), found in ranges.items():
                _RANGES[(path, digest, scheme, language)] = found
    return path, digest


def _ends(ranges: Iterable[tuple[int, int]]) -> tuple[int | None, int | None]:
    """The first and last text id the recorded ranges name: a file whose texts were
    rewritten after its build (a test's corpus, a hand edit) has other ends, and its ranges
    are scanned for instead of trusted."""
    held = [found for found in ranges if found != _EMPTY_RANGE]
    if not held:
        return None, None
    return min(first for first, _ in held), max(last for _, last in held)


_RANGE_SQL: Final = (
    "SELECT min(x.id), max(x.id) FROM concept AS c "
    "CROSS JOIN revision AS r ON r.concept_id = c.id "
    "CROSS JOIN text AS x ON x.revision_id = r.id WHERE c.scheme = ? AND x.language = ?"
)
"""One scheme's text row ids in one language, by a scan of the scheme's texts (0.8-0.9 s a
language at full scale): the build runs it once and records the answers."""


def _scan_range(stream: Stream, scheme: str, language: str) -> tuple[int, int]:
    found = _EMPTY_RANGE
    for first, last in stream(_RANGE_SQL, [scheme, language]):
        if first is not None:
            found = (int(first), int(last))
    return found


def _scheme_range(stream: Stream, key: tuple[str, str, str, str]) -> tuple[int, int]:
    _, identity, scheme, language = key
    if identity and key in _RANGES:
        return _RANGES[key]
    if (key[0], identity) in _RECORDED:
        return _EMPTY_RANGE  # the build recorded every language that has texts
    found = _scan_range(stream, scheme, language)
    if identity:
        _RANGES[key] = found
    return found


def recorded_text_ranges(connection: sqlite3.Connection) -> str:
    """The ``metadata.text_ranges`` value the build writes: every scheme's text row-id range
    in every language that has texts (``[1, 0]``: none of that scheme), as compact JSON with
    sorted keys. One pass over the texts by primary keys, so the build can run it before the
    secondary indexes exist; it answers what :data:`_RANGE_SQL` answers scheme by scheme."""
    ranges: dict[str, dict[str, list[int]]] = {}
    for language, scheme, first, last in connection.execute(
        "SELECT x.language, c.scheme, min(x.id), max(x.id) FROM text AS x "
        "JOIN revision AS r ON r.id = x.revision_id JOIN concept AS c ON c.id = r.concept_id "
        "GROUP BY x.language, c.scheme"
    ):
        schemes = ranges.setdefault(str(language), {s: list(_EMPTY_RANGE) for s in SCHEMES})
        schemes[str(scheme)] = [int(first), int(last)]
    return json.dumps(ranges, sort_keys=True, separators=(",", ":"))


_SHARED_READS: Final = (
    "SELECT block FROM ",
    "SELECT max(id) FROM ",
    "SELECT rowid FROM ",
    "SELECT count(*), max(rowid) FROM ",
)
"""Statements of the ranked path that do not depend on the scheme: the index totals, the last
row id, a term's postings and its sampled frequency (``_rank``). Ranking several schemes asks
each the same."""


def shared_reads(stream: Stream) -> Stream:
    """``stream`` that answers a repeated scheme-independent read from memory (one query).

    Only the bounded reads of :data:`_SHARED_READS` are kept (postings carry a ``LIMIT``);
    candidate statements still stream and stop early, as they must.
    """
    kept: dict[tuple[str, tuple[object, ...]], list[Row]] = {}

    def read(sql: str, params: Sequence[object]) -> Iterator[Row]:
        if not sql.startswith(_SHARED_READS):
            return stream(sql, params)
        key = (sql, tuple(params))
        if key not in kept:
            kept[key] = list(stream(sql, params))
        return iter(kept[key])

    return read


def edition_statement(
    codes: Sequence[str], editions: Sequence[str], language: str
) -> tuple[str, list[object]]:
    """Every text of the given IPC codes in the given editions (columns as the candidates).

    Read by the concept index, a bounded query: a page's codes times seven editions. Rows
    come concept by concept; :func:`with_editions` puts them in package order.
    """
    code_marks = ",".join("?" * len(codes))
    edition_marks = ",".join("?" * len(editions))
    sql = (
        f"SELECT {CLASSIFICATION_COLUMNS} FROM concept AS c "  # noqa: S608
        "CROSS JOIN revision AS r ON r.concept_id = c.id "
        "CROSS JOIN text AS x ON x.revision_id = r.id "
        f"WHERE c.scheme = 'ipc' AND c.edition IN ({edition_marks}) "
        f"AND c.code IN ({code_marks}) AND c.status = 'canonical' AND x.language = ?"
    )
    return sql, [*editions, *codes, language]


EDITION_MEMO_CODES: Final = 4_000
"""Most IPC codes whose texts a store keeps for :func:`with_editions` (a few MB)."""


def with_editions(
    groups: list[CodeGroup],
    stream: Stream,
    accept: Callable[[str], bool],
    editions: Sequence[str],
    language: str,
    memo: dict[str, Any] | None = None,
) -> None:
    """Give each IPC group the matching rows of *all* its editions (the scan stopped at the
    page's end, before it reached the older editions of the page's codes).

    ``accept`` is given a text folded for search. A code's texts in every edition, folded
    once, are kept in the store's ``memo`` (the release fixes them, ADR 0036), so a code seen
    before costs no statement and no folding.
    """
    ipc = {str(group.rows[0][_CODE]): group for group in groups if group.rows[0][_SCHEME] == "ipc"}
    if not ipc:
        return
    kept: dict[tuple[str, str], list[tuple[Row, str]]] = {}
    if memo is not None:
        kept = memo.setdefault("editions", {})
        if len(kept) > EDITION_MEMO_CODES:
            kept.clear()
    missing = sorted(code for code in ipc if (code, language) not in kept)
    if missing:
        read: dict[str, list[tuple[Row, str]]] = {code: [] for code in missing}
        sql, params = edition_statement(missing, IPC_EDITIONS, language)
        for row in sorted(stream(sql, params)):
            read[str(row[_CODE])].append((row, fold_for_search(str(row[_BODY]))))
        for code, rows in read.items():
            kept[(code, language)] = rows
    wanted = set(editions)
    for code, group in ipc.items():
        found = [
            row
            for row, folded in kept[(code, language)]
            if row[_EDITION] in wanted and accept(folded)
        ]
        if found:
            group.rows = found


def preferred_first(rows: list[Row]) -> list[Row]:
    """A code's rows with its preferred IPC edition's first (FI, F-term: unchanged)."""
    if len(rows) == 1 or rows[0][_SCHEME] != "ipc":
        return rows
    return sorted(rows, key=lambda row: (_EDITION_RANK.get(str(row[_EDITION]), 99), row[0]))


def classification_hit(
    rows: list[Row], folded: tuple[str, ...], source: Callable[[int, str], SourceRef]
) -> ClassificationSearchHit:
    """The record of one code: its preferred edition's rows first, equal texts once."""
    ipc = rows[0][_SCHEME] == "ipc"
    rows = preferred_first(rows)
    first = rows[0]
    shown: dict[tuple[str, str, str], tuple[Row, list[str]]] = {}
    editions: dict[str, None] = {}
    for row in rows:
        edition = str(row[_EDITION])
        editions[edition] = None
        text = (str(row[1]), str(row[2]), str(row[_BODY]))
        if text in shown:
            if edition not in shown[text][1]:
                shown[text][1].append(edition)
        elif len(shown) < MAX_MATCHES_PER_GROUP:
            shown[text] = (row, [edition])
    matches: list[ClassificationMatch] = []
    for row, row_editions in shown.values():
        match: ClassificationMatch = {
            "language": str(row[1]),
            "text_type": str(row[2]),
            "line": int(row[3]),
            "version": str(row[13]),
            "excerpt": excerpt(str(row[_BODY]), folded),
            "source": source(row[5], row[6]),
        }
        if ipc:
            match["editions"] = row_editions
        matches.append(match)
    hit: ClassificationSearchHit = {
        "scheme": str(first[_SCHEME]),
        "edition": str(first[_EDITION]) or None,
        "code": str(first[_CODE]),
        "kind": str(first[11]),
        "record_status": str(first[12]),
        "matches": matches,
    }
    if ipc:
        hit["editions"] = list(editions)
    return hit
