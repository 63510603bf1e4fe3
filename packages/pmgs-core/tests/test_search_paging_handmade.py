"""Grouped paging, excerpts and combined modes, on rows written out in the test (issue 34).

``collect_groups`` reads candidate rows from a cursor over a table of 14 rows inserted here,
so what it keeps, which rows it reads before it stops and which rows it asks the final check
about are all compared with lists worked out by hand. No reference database is built, so the
file runs in a second and is what the mutation session's ``search`` target runs against
``search/_paging.py``; the end-to-end paging table on a built database stays in
``test_search_paging_table.py``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from pmgs_core.search import (
    MAX_MATCHES_PER_GROUP,
    collect_groups,
    combine_indexes,
    combine_modes,
    excerpt,
)

Row = tuple[int, str, int]

# (id, group, passes the final check), in row order. Groups by their first passing row:
# A (1, 3, 5, 6), B (4, 8; row 2 fails), C (7, 12), E (11, 14), F (13); D never passes.
ROWS: list[Row] = [
    (1, "A", 1),
    (2, "B", 0),
    (3, "A", 1),
    (4, "B", 1),
    (5, "A", 1),
    (6, "A", 1),
    (7, "C", 1),
    (8, "B", 1),
    (9, "D", 0),
    (10, "D", 0),
    (11, "E", 1),
    (12, "C", 1),
    (13, "F", 1),
    (14, "E", 1),
]


@pytest.fixture(scope="module")
def conn() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE candidate (id INTEGER PRIMARY KEY, grp TEXT, ok INTEGER)")
    connection.executemany("INSERT INTO candidate VALUES (?, ?, ?)", ROWS)
    yield connection
    connection.close()


def _page(
    conn: sqlite3.Connection, offset: int, limit: int, **kwargs: int
) -> tuple[list[str], dict[str, list[int]], bool, list[int], list[int]]:
    """keys, row ids per key, has_more, ids read from the cursor, ids given to the check."""
    read: list[int] = []
    checked: list[int] = []

    def rows() -> Iterator[Row]:
        for row in conn.execute("SELECT id, grp, ok FROM candidate ORDER BY id"):
            read.append(row[0])
            yield row

    def accept(row: Row) -> bool:
        checked.append(row[0])
        return row[2] == 1

    page = collect_groups(
        rows(), key=lambda row: row[1], accept=accept, offset=offset, limit=limit, **kwargs
    )
    ids = {key: [row[0] for row in found] for key, found in page.rows.items()}
    return page.keys, ids, page.has_more, read, checked


ALL = list(range(1, 15))


@pytest.mark.parametrize(
    ("offset", "limit", "keys", "rows", "has_more", "read", "checked"),
    [
        # the page ends when a group beyond it passes the check (row 7, group C)
        (0, 2, ["A", "B"], {"A": [1, 3, 5], "B": [4]}, True, ALL[:7], [1, 2, 3, 4, 5, 7]),
        # groups before the offset are ranked, then never checked again
        (
            1,
            2,
            ["B", "C"],
            {"B": [4, 8], "C": [7]},
            True,
            ALL[:11],
            [1, 2, 4, 7, 8, 9, 10, 11],
        ),
        (3, 5, ["E", "F"], {"E": [11, 14], "F": [13]}, False, ALL, [1, 2, 4, 7, 9, 10, 11, 13, 14]),
        (4, 1, ["F"], {"F": [13]}, False, ALL, [1, 2, 4, 7, 9, 10, 11, 13]),
        (5, 1, [], {}, False, ALL, [1, 2, 4, 7, 9, 10, 11, 13]),
        (9, 3, [], {}, False, ALL, [1, 2, 4, 7, 9, 10, 11, 13]),
        # a full group (3 rows) is not checked again: row 6 never is
        (
            0,
            5,
            ["A", "B", "C", "E", "F"],
            {"A": [1, 3, 5], "B": [4, 8], "C": [7, 12], "E": [11, 14], "F": [13]},
            False,
            ALL,
            [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14],
        ),
        (
            0,
            4,
            ["A", "B", "C", "E"],
            {"A": [1, 3, 5], "B": [4, 8], "C": [7, 12], "E": [11]},
            True,
            ALL[:13],
            [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13],
        ),
        (0, 0, [], {}, True, [1], [1]),
    ],
)
def test_collect_groups(
    conn: sqlite3.Connection,
    offset: int,
    limit: int,
    keys: list[str],
    rows: dict[str, list[int]],
    has_more: bool,
    read: list[int],
    checked: list[int],
) -> None:
    assert _page(conn, offset, limit) == (keys, rows, has_more, read, checked)


def test_matches_per_group() -> None:
    assert MAX_MATCHES_PER_GROUP == 3


def test_collect_groups_with_one_match_per_group(conn: sqlite3.Connection) -> None:
    keys, rows, has_more, read, checked = _page(conn, 0, 5, max_rows_per_group=1)
    assert keys == ["A", "B", "C", "E", "F"]
    assert rows == {"A": [1], "B": [4], "C": [7], "E": [11], "F": [13]}
    assert has_more is False
    assert read == ALL
    assert checked == [1, 2, 4, 7, 9, 10, 11, 13]


def test_a_fresh_page_is_empty() -> None:
    page = collect_groups(iter([]), key=str, accept=bool, offset=0, limit=10)
    assert (page.keys, page.rows, page.has_more) == ([], {}, False)


# -- excerpts -----------------------------------------------------------------------------


_LONG = "x" * 200 + "窓" + "y" * 199 + "Ｚ"  # 401 characters: 窓 at 200, Ｚ at 400


@pytest.mark.parametrize(
    ("body", "terms", "expected"),
    [
        ("short text", ("none",), "short text"),
        ("a" * 300, ("zzz",), "a" * 300),
        # a window of 60 characters before the match and 140 from it
        (_LONG, ("窓",), _LONG[140:340]),
        # the first term that occurs decides, even when a later one occurs earlier
        (_LONG, ("none", "窓", "x"), _LONG[140:340]),
        # ... also when it occurs at the very start
        (_LONG, ("x", "窓"), _LONG[0:140]),
        # positions are found in the folded text (Ｚ folds to z)
        (_LONG, ("z",), _LONG[340:401]),
        # no term occurs: the window starts at the beginning
        (_LONG, ("none",), _LONG[0:140]),
        (_LONG, (), _LONG[0:140]),
        ("b" * 301, ("b",), "b" * 140),
        ("b" * 100 + "c" + "b" * 200, ("c",), "b" * 60 + "c" + "b" * 139),
        ("b" * 59 + "c" + "b" * 241, ("c",), "b" * 59 + "c" + "b" * 139),
    ],
)
def test_excerpt(body: str, terms: tuple[str, ...], expected: str) -> None:
    assert excerpt(body, terms) == expected


def test_a_position_past_the_raw_text_is_held_at_its_last_character() -> None:
    # ㌀ folds to four characters, so z is at 1204 in the folded text of a 302-character
    # body: the window is taken around the body's last character (301)
    body = "㌀" * 301 + "z"
    assert excerpt(body, ("z",)) == body[241:302]


def test_excerpt_whole_up_to() -> None:
    body = "0123456789" * 30 + "窓" + "9" * 100  # 401 characters
    assert excerpt(body, ("窓",), whole_up_to=401) == body
    assert excerpt(body, ("窓",), whole_up_to=400) == body[240:401]
    assert excerpt("abcdef", ("c",), whole_up_to=5) == "abcdef"


# -- the mode and index of a combined search --------------------------------------------------


@pytest.mark.parametrize(
    ("modes", "mode"),
    [
        ([], "sqlite_literal_substring_lexical"),
        (["sqlite_fts5_trigram_lexical"], "sqlite_fts5_trigram_lexical"),
        (["sqlite_literal_substring_lexical"], "sqlite_literal_substring_lexical"),
        (["sqlite_fts5_trigram_lexical"] * 3, "sqlite_fts5_trigram_lexical"),
        (["sqlite_fts5_trigram_lexical", "sqlite_literal_substring_lexical"], "mixed_lexical"),
        (["mixed_lexical", "mixed_lexical"], "mixed_lexical"),
    ],
)
def test_combine_modes(modes: list[str], mode: str) -> None:
    assert combine_modes(iter(modes)) == mode  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("indexes", "index"),
    [
        ([], "none"),
        (["none"], "none"),
        (["none", "none"], "none"),
        (["fts5_trigram"], "fts5_trigram"),
        (["none", "fts5_bigram", "none"], "fts5_bigram"),
        (["substring_scan", "substring_scan"], "substring_scan"),
        (["fts5_trigram", "fts5_bigram"], "mixed"),
        (["none", "fts5_trigram", "substring_scan"], "mixed"),
        (["mixed"], "mixed"),
    ],
)
def test_combine_indexes(indexes: list[str], index: str) -> None:
    assert combine_indexes(iter(indexes)) == index  # type: ignore[arg-type]
