"""Relevance order, match="any", min_score and grouping, on a hand-written corpus.

A copy of the generated database gets its text and document tables replaced by the rows
below and its search indexes rebuilt; the expected scores are BM25 computed here from counts
written by hand (term frequency, row length in trigrams, document frequency), not by the
code under test.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from pmgs_core import PMGSQueryError, PMGSStore, load_schema
from pmgs_core.schema import rebuild_search_indexes
from pmgs_core.search import CANDIDATE_CAP, SearchRequest, plan_query
from pmgs_core.search._run import CLASSIFICATION_SOURCE

# (concept letter, body). Trigram counts (length - 2, 0 when shorter than 3) in comments.
TEXTS = [
    ("A", "リチウムイオン電池の負極"),  # 12 chars, 10 trigrams
    ("A", "負極バインダー"),  # 7, 5
    ("B", "負極材料"),  # 4, 2
    ("C", "電池の外装ケース"),  # 8, 6
    ("D", "バインダー樹脂組成物"),  # 10, 8
    ("E", "樹脂"),  # 2, 0
    ("F", "正極の構造"),  # 5, 3
    ("F", "正極の構造"),  # 5, 3
    ("G", "正極の構造"),  # 5, 3
]
N = 9
AVGDL = (10 + 5 + 2 + 6 + 8 + 0 + 3 + 3 + 3) / 9  # FTS5's totals: trigrams / rows
SEGMENTS = [
    ("doc1", "負極バインダーの説明"),  # 10, 8
    ("doc1", "負極の説明"),  # 5, 3
    ("doc2", "外装の説明"),  # 5, 3
]
DOC_N = 3
DOC_AVGDL = (8 + 3 + 3) / 3


def bm25(tf: int, dl: int, df: int, *, rows: int = N, avgdl: float = AVGDL) -> float:
    """The textbook BM25 term weight (k1 = 1.2, b = 0.75, non-negative idf)."""
    idf = math.log(1 + (rows - df + 0.5) / (df + 0.5))
    return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl))


def group(*rows: float) -> float:
    """Best row plus 0.2 x the next two (the documented group score)."""
    best, *others = sorted(rows, reverse=True)[:3]
    return best + 0.2 * sum(others)


@pytest.fixture(scope="module")
def corpus(database_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[PMGSStore]:
    path = tmp_path_factory.mktemp("ranked") / "corpus.sqlite"
    shutil.copyfile(database_path, path)
    conn = sqlite3.connect(path)
    revisions = conn.execute(
        "SELECT min(r.id), c.code FROM revision AS r JOIN concept AS c ON c.id = r.concept_id "
        "WHERE c.status = 'canonical' AND c.scheme = 'fi' GROUP BY c.id ORDER BY c.id LIMIT 7"
    ).fetchall()
    source_file = conn.execute("SELECT min(id) FROM source_file").fetchone()[0]
    letters = dict(zip("ABCDEFG", revisions, strict=True))
    conn.execute("DELETE FROM text")
    conn.execute("DELETE FROM document_link")
    conn.execute("DELETE FROM document_text")
    conn.execute("DELETE FROM document")
    for table in ("text_fts", "text_bigram", "document_text_fts", "document_text_bigram"):
        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('delete-all')")
    for line, (letter, body) in enumerate(TEXTS, 1):
        conn.execute(
            "INSERT INTO text (revision_id, language, text_type, line, body, source_file_id, "
            "locator) VALUES (?, 'ja', 'title', ?, ?, ?, ?)",
            (letters[letter][0], line, body, source_file, f"row:{line}"),
        )
    for key in ("doc1", "doc2"):
        conn.execute(
            "INSERT INTO document (document_key, kind, language, title, source_file_id, locator)"
            " VALUES (?, 'fi_handbook', 'ja', ?, ?, 'file')",
            (f"fi_handbook:{key}", key, source_file),
        )
    for number, (key, body) in enumerate(SEGMENTS, 1):
        conn.execute(
            "INSERT INTO document_text (document_id, sequence_number, body, source_file_id, "
            "locator) SELECT id, ?, ?, ?, ? FROM document WHERE title = ?",
            (number, body, source_file, f"page:{number}", key),
        )
    conn.commit()
    rebuild_search_indexes(conn)
    conn.commit()
    conn.close()
    store = PMGSStore.open(path)
    store.codes = {letter: code for letter, (_, code) in letters.items()}  # type: ignore[attr-defined]
    yield store
    store.close()


def _ranked(store: PMGSStore, query: str, **kwargs: object) -> list[tuple[str, float]]:
    page = store.search(query, order="relevance", **kwargs)  # type: ignore[arg-type]
    assert page["index"] == "fts5_bm25"
    short = any(len(term) < 3 for term in query.split())
    assert page["search_mode"] == (
        "sqlite_literal_substring_lexical" if short else "sqlite_fts5_trigram_lexical"
    )
    letter = {code: key for key, code in store.codes.items()}  # type: ignore[attr-defined]
    return [(letter[hit["code"]], hit["score"]) for hit in page["results"]]


def test_bigram_term_scores_match_hand_computed_bm25(corpus: PMGSStore) -> None:
    # 負極: rows A1 (10 trigrams), A2 (5), B1 (2); df = 3.
    a = group(bm25(1, 10, 3), bm25(1, 5, 3))
    b = bm25(1, 2, 3)
    assert b > a
    assert _ranked(corpus, "負極") == [("B", 1.0), ("A", round(a / b, 4))]


def test_title_and_second_line_outrank_a_single_equal_line(corpus: PMGSStore) -> None:
    # 正極の構造 (a trigram term): F has it on two lines, G on one.
    ranked = _ranked(corpus, "正極の構造")
    assert ranked == [("F", 1.0), ("G", round(1 / 1.2, 4))]


def test_any_rare_term_outranks_common_one(corpus: PMGSStore) -> None:
    # 組成物 occurs once (D1, df 1), 負極 three times: D ranks first despite its longer row.
    d = bm25(1, 8, 1)
    b = bm25(1, 2, 3)
    a = group(bm25(1, 10, 3), bm25(1, 5, 3))
    ranked = _ranked(corpus, "負極 組成物", match="any")
    assert ranked == [("D", 1.0), ("B", round(b / d, 4)), ("A", round(a / d, 4))]


def test_any_more_terms_rank_higher_and_matched_terms(corpus: PMGSStore) -> None:
    page = corpus.search("負極 バインダー", order="relevance", match="any")
    hits = {hit["code"]: hit for hit in page["results"]}
    codes = corpus.codes  # type: ignore[attr-defined]
    # Coordination: a row holding 1 of the 2 terms counts half its BM25 sum.
    a = group(bm25(1, 5, 3) + bm25(1, 5, 2), bm25(1, 10, 3) / 2)
    d = bm25(1, 8, 2) / 2
    b = bm25(1, 2, 3) / 2
    assert [hit["code"] for hit in page["results"]] == [codes["A"], codes["B"], codes["D"]]
    assert hits[codes["A"]]["matched_terms"] == ["負極", "バインダー"]
    assert hits[codes["D"]]["matched_terms"] == ["バインダー"]
    assert hits[codes["B"]]["score"] == round(b / a, 4)
    assert hits[codes["D"]]["score"] == round(d / a, 4)
    # The best row is shown first in the group.
    assert [m["excerpt"] for m in hits[codes["A"]]["matches"]] == [
        "負極バインダー",
        "リチウムイオン電池の負極",
    ]
    # match="all" keeps only the code with both terms in one line.
    assert _ranked(corpus, "負極 バインダー") == [("A", 1.0)]


def test_min_score_drops_weaker_hits(corpus: PMGSStore) -> None:
    ranked = _ranked(corpus, "負極 組成物", match="any")
    threshold = ranked[1][1]
    kept = _ranked(corpus, "負極 組成物", match="any", min_score=threshold)
    assert kept == [hit for hit in ranked if hit[1] >= threshold]
    assert len(kept) == 2


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("樹脂 組成物", {"D"}),  # 2 + 3 characters, all
        ("負 リチウム", {"A"}),  # 1 + 4
        ("負 極", {"A", "B"}),  # 1 + 1: literal scan
        ("脂 樹脂", {"D", "E"}),  # 1 + 2
        ("の 電池 外装", {"C"}),  # 1 + 2 + 2
        ("負極 の 電池", {"A"}),  # 2 + 1 + 2
    ],
)
def test_mixed_short_and_long_terms(corpus: PMGSStore, query: str, expected: set[str]) -> None:
    assert {letter for letter, _ in _ranked(corpus, query)} == expected


def test_mixed_terms_any(corpus: PMGSStore) -> None:
    # 負 (1 char, scored only), 樹脂 (2), リチウム (4): rows with either indexed term.
    # The 1-character term is weighed from the bigram rows starting with it (A1, A2, B1) but
    # fetches no rows itself, so A2 (負 only) is not a candidate; a row shorter than 3
    # characters counts as 1 trigram.
    ranked = dict(_ranked(corpus, "負 樹脂 リチウム", match="any"))
    # Coordination: A1 holds 2 of the 3 terms, D1 and E1 one each.
    a = (bm25(1, 10, 3) + bm25(1, 10, 1)) * 2 / 3
    d = bm25(1, 8, 2) / 3
    e = bm25(1, 1, 2) / 3
    top = max(a, d, e)
    assert ranked == {"A": round(a / top, 4), "D": round(d / top, 4), "E": round(e / top, 4)}


def test_paging_continues_below_the_first_page(corpus: PMGSStore) -> None:
    first = corpus.search("負極 組成物", order="relevance", match="any", limit=1)
    second = corpus.search("負極 組成物", order="relevance", match="any", limit=1, offset=1)
    assert first["has_more"]
    assert first["next_offset"] == 1
    assert first["results"][0]["score"] == 1.0
    assert 0 < second["results"][0]["score"] < 1.0


def test_documents_grouped_and_ranked(corpus: PMGSStore) -> None:
    page = corpus.search_documents("負極 外装", order="relevance", match="any")
    doc1 = group(
        bm25(1, 3, 2, rows=DOC_N, avgdl=DOC_AVGDL), bm25(1, 8, 2, rows=DOC_N, avgdl=DOC_AVGDL)
    )
    doc2 = bm25(1, 3, 1, rows=DOC_N, avgdl=DOC_AVGDL)
    # 外装 is in one segment of three, 負極 in two: the rarer term wins.
    assert doc2 > doc1
    assert [(hit["title"], hit["score"]) for hit in page["results"]] == [
        ("doc2", 1.0),
        ("doc1", round(doc1 / doc2, 4)),
    ]
    assert len(page["results"][1]["matches"]) == 2


def test_default_order_and_shape_unchanged(corpus: PMGSStore) -> None:
    page = corpus.search("負極")
    assert (page["search_mode"], page["index"]) == (
        "sqlite_literal_substring_lexical",
        "fts5_bigram",
    )
    assert "order" not in page
    assert all("score" not in hit and "matched_terms" not in hit for hit in page["results"])
    codes = corpus.codes  # type: ignore[attr-defined]
    assert [hit["code"] for hit in page["results"]] == [codes["A"], codes["B"]]


def test_blank_query_is_an_empty_page(corpus: PMGSStore) -> None:
    page = corpus.search("  ", order="relevance", match="any")
    assert page["results"] == []
    assert (page["search_mode"], page["index"]) == ("sqlite_literal_substring_lexical", "none")


@pytest.mark.parametrize(
    "kwargs",
    [{"order": "best"}, {"match": "some"}, {"min_score": 1.5}, {"min_score": True}],
)
def test_bad_ranking_arguments(corpus: PMGSStore, kwargs: dict[str, object]) -> None:
    with pytest.raises(PMGSQueryError) as caught:
        corpus.search("負極", **kwargs)  # type: ignore[arg-type]
    assert caught.value.code == "INVALID_ARGUMENT"


def _valid(record: object) -> None:
    jsonschema.Draft202012Validator(load_schema("text_search_result")).validate(record)


def test_search_text_items_grouped_by_document(corpus: PMGSStore) -> None:
    result = corpus.search_text("負極 バインダー", limit=10, min_score=0.0)
    _valid(result)
    assert result["vector_search_used"] is False
    assert (result["search_mode"], result["index"]) == (
        "sqlite_literal_substring_lexical",
        "fts5_bm25",
    )
    items = result["items"]
    codes = corpus.codes  # type: ignore[attr-defined]
    # Classifications and segments ranked together by raw BM25 (own statistics each).
    documents = [item["document_id"] for item in items if item["content_type"] == "document"]
    assert documents == ["fi_handbook:doc1"]
    classes = [item["document_id"] for item in items if item["content_type"] == "classification"]
    assert classes == [f"fi:{codes[letter]}" for letter in ("A", "B", "D")]
    assert items[0]["similarity"] == 1.0
    assert all(item["source"] == "official" for item in items)
    assert all(item["mime"] in ("text/csv", "application/xml", "text/html") for item in items)
    first_a = next(item for item in items if item["document_id"] == f"fi:{codes['A']}")
    assert first_a["content"] == "負極バインダー\nリチウムイオン電池の負極"
    assert first_a["category"] == "fi"


def test_search_text_ungrouped_and_min_score(corpus: PMGSStore) -> None:
    result = corpus.search_text("正極の構造", group_by_document=False, min_score=0.0)
    _valid(result)
    assert [item["content"] for item in result["items"]] == ["正極の構造"] * 3
    assert [item["similarity"] for item in result["items"]] == [1.0] * 3
    # The default min_score (0.3) drops the weak hits: 負極 rows far below the 組成物 one.
    default = corpus.search_text("負極 組成物", category="fi", limit=10)
    everything = corpus.search_text("負極 組成物", category="fi", limit=10, min_score=0.0)
    assert [i for i in everything["items"] if i["similarity"] >= 0.3] == default["items"]


def test_search_text_category_and_empty_query(corpus: PMGSStore) -> None:
    documents = corpus.search_text("負極", category="fi_handbook", min_score=0.0)
    assert {item["content_type"] for item in documents["items"]} == {"document"}
    assert corpus.search_text("負極", category="ipc")["items"] == []
    empty = corpus.search_text("   ")
    _valid(empty)
    assert empty["items"] == []
    with pytest.raises(PMGSQueryError) as caught:
        corpus.search_text("負極", category="patents")
    assert caught.value.code == "INVALID_ARGUMENT"


def test_candidate_cap_bounds_the_rows_read(store: PMGSStore, examples: dict[str, str]) -> None:
    # The generated package's common phrase is in far more lines than a cap of 5.
    source = dataclasses.replace(CLASSIFICATION_SOURCE, cap=5)
    request = SearchRequest(
        examples["common_phrase"],
        plan_query(examples["common_phrase"]),
        "ja",
        200,
        ["fi", "fterm", "ipc"],
        None,
        "relevance",
        "all",
        0.0,
    )
    ranked = source.rank(store._search_reader(), request, 0)
    assert ranked.capped
    assert 1 <= sum(len(group.rows) for group in ranked.groups) <= 5
    page = store.search(examples["common_phrase"], order="relevance", limit=200)
    # Each of the three schemes is ranked on a third of the cap (ADR 0022).
    assert page["candidates_capped"] is any(
        _lines_with(store, examples["common_phrase"], scheme) >= CANDIDATE_CAP // 3
        for scheme in ("fi", "fterm", "ipc")
    )


def _lines_with(store: PMGSStore, phrase: str, scheme: str) -> int:
    """Canonical ja lines of a scheme holding the phrase, counted by SQL (not by the code
    under test)."""
    (count,) = (
        store._connection()
        .execute(
            "SELECT count(*) FROM text AS t JOIN revision AS r ON r.id = t.revision_id "
            "JOIN concept AS c ON c.id = r.concept_id WHERE c.status = 'canonical' "
            "AND t.language = 'ja' AND c.scheme = ? AND instr(t.body, ?) > 0",
            (scheme, phrase),
        )
        .fetchone()
    )
    return int(count)
