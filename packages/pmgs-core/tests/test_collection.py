"""The user's collection: paging edges, filters, ranking, bad input, FTS kept in step.

Expectations come from hand-written tables and from SQL run in the test against the file,
never from the collection's own answers.
"""

from __future__ import annotations

import hashlib
import math
import sqlite3
from pathlib import Path

import pytest

from pmgs_core import Collection, PMGSQueryError
from pmgs_core.collection import CHUNK_CHARS, COLLECTION_SCHEMA_VERSION, MAX_PATH_CHARS
from pmgs_core.collection._chunks import guess_mime, split_items


@pytest.fixture
def col(tmp_path: Path) -> Collection:
    with Collection(tmp_path / "c.sqlite") as c:
        yield c  # type: ignore[misc]


def _sql(col: Collection, sql: str, *args: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(col.path) as conn:
        return [tuple(r) for r in conn.execute(sql, args)]


# --- items and MIME types: hand tables --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("one", 10, ["one"]),
        ("\n\none\n\n", 10, ["one"]),
        ("aa\n\nbb", 10, ["aa\n\nbb"]),  # packed: 6 chars <= 10
        ("aaaa\n\nbbbb", 8, ["aaaa", "bbbb"]),  # 10 chars > 8: two items
        ("abcdefghij", 4, ["abcd", "efgh", "ij"]),  # one long line cut at the limit
        ("ab\ncd\nef", 5, ["ab\ncd", "ef"]),  # a long paragraph cut at line ends
        ("a\r\n\r\nb", 10, ["a\n\nb"]),  # CRLF read as LF
        ("   \n\n\t", 10, []),
    ],
)
def test_split_items_table(text: str, limit: int, expected: list[str]) -> None:
    assert split_items(text, limit) == expected


def test_split_items_keeps_every_character_of_long_text() -> None:
    text = "\n\n".join(f"段落{i} " + "あ" * (i * 97 % 2500) for i in range(40))
    items = split_items(text)
    assert all(len(item) <= CHUNK_CHARS for item in items)
    assert "".join(items).replace("\n", "") == text.replace("\n", "")


@pytest.mark.parametrize(
    ("path", "mime"),
    [
        ("notes/a.md", "text/markdown"),
        ("a.TXT", "text/plain"),
        ("x/y.html", "text/html"),
        ("x/y.json", "application/json"),
        ("no-extension", "text/plain"),
        (".hidden", "text/plain"),
    ],
)
def test_guess_mime_table(path: str, mime: str) -> None:
    assert guess_mime(path) == mime


# --- paging --------------------------------------------------------------------------------


def test_empty_collection_pages(col: Collection) -> None:
    page = col.list_documents()
    assert (page["items"], page["total_count"], page["total_pages"], page["page"]) == ([], 0, 0, 1)
    assert col.get_document_count() == 0


@pytest.mark.parametrize(
    ("count", "limit", "page", "ids", "pages"),
    [
        (5, 2, 1, [1, 2], 3),
        (5, 2, 3, [5], 3),
        (5, 2, 4, [], 3),  # past the end: empty, never an error
        (5, 5, 1, [1, 2, 3, 4, 5], 1),
        (5, 100, 1, [1, 2, 3, 4, 5], 1),
        (5, 1, 5, [5], 5),
        (5, 1, 1_000_000, [], 5),
    ],
)
def test_list_documents_paging_table(
    col: Collection, count: int, limit: int, page: int, ids: list[int], pages: int
) -> None:
    for n in range(count):
        col.add_item_text(f"note {n}", f"n{n}.txt")
    result = col.list_documents(limit=limit, page=page)
    assert [d["id"] for d in result["items"]] == ids
    assert result["total_count"] == count == _sql(col, "SELECT count(*) FROM documents")[0][0]
    assert result["total_pages"] == pages == math.ceil(count / limit)


@pytest.mark.parametrize(
    ("kwargs", "code", "argument"),
    [
        ({"limit": 0}, "INVALID_LIMIT", "limit"),
        ({"limit": 101}, "INVALID_LIMIT", "limit"),
        ({"limit": True}, "INVALID_LIMIT", "limit"),
        ({"page": 0}, "INVALID_PAGE", "page"),
        ({"page": -1}, "INVALID_PAGE", "page"),
        ({"page": 1_000_001}, "INVALID_PAGE", "page"),
        ({"category": ""}, "INVALID_CATEGORY", "category"),
    ],
)
def test_list_documents_bad_arguments(
    col: Collection, kwargs: dict[str, object], code: str, argument: str
) -> None:
    with pytest.raises(PMGSQueryError) as caught:
        col.list_documents(**kwargs)  # type: ignore[arg-type]
    assert caught.value.code == code
    assert caught.value.details["argument"] == argument


def test_document_items_page(col: Collection) -> None:
    text = "\n\n".join("x" * 1500 for _ in range(5))  # 5 paragraphs that do not pack: 5 items
    doc = col.add_item_text(text, "long.txt")["document"]
    assert doc["chunk_count"] == 5
    first = col.get_document(doc["id"], limit=2)
    assert [i["position"] for i in first["items"]] == [0, 1]
    assert (first["has_more"], first["next_offset"]) == (True, 2)
    last = col.get_document(doc["id"], limit=2, offset=4)
    assert ([i["position"] for i in last["items"]], last["has_more"]) == ([4], False)
    assert last["next_offset"] is None
    beyond = col.get_document(doc["id"], limit=2, offset=99)
    assert (beyond["items"], beyond["has_more"]) == ([], False)
    assert col.find_document("long.txt", limit=1)["document"]["id"] == doc["id"]


# --- categories and counts -------------------------------------------------------------------


def test_categories_and_filters(col: Collection) -> None:
    col.add_item_text("電池の式", "a.txt", category="電池")
    col.add_item_text("電池の別の式", "b.txt", category="電池")
    col.add_item_text("電池と車両", "c.txt", category="車両")
    col.add_item_text("電池", "d.txt")
    cats = col.list_categories()
    assert cats["categories"] == [
        {"category": "車両", "document_count": 1},
        {"category": "電池", "document_count": 2},
    ]
    expected = dict(
        _sql(col, "SELECT category, count(*) FROM documents WHERE category IS NOT NULL GROUP BY 1")
    )
    assert {c["category"]: c["document_count"] for c in cats["categories"]} == expected
    assert cats["uncategorised_document_count"] == 1
    assert col.get_document_count() == 4
    assert col.get_document_count("電池") == 2
    assert col.get_document_count("無い") == 0
    assert {d["path"] for d in col.list_documents(category="電池")["items"]} == {"a.txt", "b.txt"}
    found = col.search_text("電池", limit=10, category="車両")["items"]
    assert [i["path"] for i in found] == ["c.txt"]
    assert len(col.search_text("電池", limit=10)["items"]) == 4


# --- search: ranking oracle -------------------------------------------------------------------


def _bm25(docs: dict[str, str], terms: list[str]) -> dict[str, float]:
    """Okapi BM25 (k1=1.2, b=0.75) written out independently for a tiny corpus."""
    n = len(docs)
    avg = sum(len(t) for t in docs.values()) / n
    scores = {}
    for name, text in docs.items():
        total = 0.0
        for term in terms:
            df = sum(term in t for t in docs.values())
            tf = text.count(term)
            if tf:
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                total += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(text) / avg))
        if total:
            scores[name] = total
    return scores


def test_search_ranks_as_bm25_over_short_and_long_terms(col: Collection) -> None:
    docs = {
        "a.txt": "負極バインダーの組成。負極に用いる。",
        "b.txt": "電池の負極",
        "c.txt": "電池ケースと電池パック",
        "d.txt": "バインダー樹脂",
        "e.txt": "無関係な文章です",
    }
    for path, text in docs.items():
        col.add_item_text(text, path)
    terms = ["負極", "バインダー", "電池"]  # 2, 5 and 2 characters
    oracle = _bm25(docs, terms)
    answer = col.search_text(" ".join(terms), limit=10)
    got = {i["path"]: i["similarity"] for i in answer["items"]}
    best = max(oracle.values())
    assert set(got) == set(oracle)  # e.txt matches nothing
    for path, score in oracle.items():
        assert got[path] == pytest.approx(score / best, abs=1e-3)
    assert [i["path"] for i in answer["items"]] == sorted(oracle, key=lambda p: -oracle[p])
    assert answer["vector_search_used"] is False
    assert answer["items"][0]["similarity"] == 1.0
    a = next(i for i in answer["items"] if i["path"] == "a.txt")
    assert a["matched_terms"] == ["負極", "バインダー"]


def test_search_min_score_limit_and_grouping(col: Collection) -> None:
    col.add_item_text("\n\n".join(["ゴム 配合", "x" * 1999, "ゴム"]), "g.txt")
    col.add_item_text("ゴム", "h.txt")
    col.add_item_text("ゴムゴムゴム 配合", "i.txt")
    per_item = col.search_text("ゴム 配合", limit=10, group_by_document=False, min_score=0)["items"]
    grouped = col.search_text("ゴム 配合", limit=10, min_score=0)["items"]
    assert len(per_item) == 4  # g.txt has two matching items
    assert sorted(i["path"] for i in grouped) == ["g.txt", "h.txt", "i.txt"]
    assert [i["similarity"] for i in per_item] == sorted(
        (i["similarity"] for i in per_item), reverse=True
    )
    floor = per_item[1]["similarity"]
    kept = col.search_text("ゴム 配合", limit=10, group_by_document=False, min_score=floor)
    assert all(i["similarity"] >= floor for i in kept["items"])
    assert len(kept["items"]) == sum(i["similarity"] >= floor for i in per_item)
    assert len(col.search_text("ゴム", limit=1)["items"]) == 1


@pytest.mark.parametrize("query", ["", "   ", "\n"])
def test_empty_query_gives_empty_items(col: Collection, query: str) -> None:
    col.add_item_text("text", "a.txt")
    assert col.search_text(query)["items"] == []


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"content": "a\x00b"}, "INVALID_QUERY"),
        ({"content": "x" * 1001}, "INVALID_QUERY"),
        ({"content": " ".join(str(n) for n in range(33))}, "INVALID_QUERY"),
        ({"content": "a", "limit": 0}, "INVALID_LIMIT"),
        ({"content": "a", "limit": 101}, "INVALID_LIMIT"),
        ({"content": "a", "min_score": 1.5}, "INVALID_ARGUMENT"),
        ({"content": "a", "min_score": -0.1}, "INVALID_ARGUMENT"),
        ({"content": "a", "min_score": float("nan")}, "INVALID_ARGUMENT"),
    ],
)
def test_search_bad_arguments(col: Collection, kwargs: dict[str, object], code: str) -> None:
    with pytest.raises(PMGSQueryError) as caught:
        col.search_text(**kwargs)  # type: ignore[arg-type]
    assert caught.value.code == code


def test_search_folds_width_and_case(col: Collection) -> None:
    col.add_item_text("ＡＢＣ樹脂とＰＥＴ", "w.txt")
    assert [i["path"] for i in col.search_text("abc樹脂 pet")["items"]] == ["w.txt"]


def test_excerpt_is_bounded_and_marked(col: Collection) -> None:
    col.add_item_text("あ" * 1000 + "目印" + "い" * 900, "long.txt")
    item = col.search_text("目印")["items"][0]
    assert "目印" in item["content"]
    assert item["content"].startswith("…")
    assert item["content"].endswith("…")
    assert len(item["content"]) == 300 + 2


# --- writes: update, delete, FTS in step ---------------------------------------------------


def _fts_ids(col: Collection, phrase: str) -> set[int]:
    rows = _sql(col, "SELECT rowid FROM items_fts WHERE items_fts MATCH ?", f'"{phrase}"')
    return {int(r[0]) for r in rows}


def test_update_and_delete_keep_index_and_hash_in_step(col: Collection) -> None:
    added = col.add_item_text("古い文章です\n\n二つ目の段落", "u.txt")
    assert len(added["item_ids"]) == 1
    item_id = added["item_ids"][0]
    col.add_item_text("追記された段落", "u.txt")
    updated = col.update_item(item_id, "新しい文章です")
    assert updated["content"] == "新しい文章です"
    assert _fts_ids(col, "新しい文章") == {item_id}
    assert _fts_ids(col, "古い文章") == set()
    texts = [r[0] for r in _sql(col, "SELECT content FROM items ORDER BY position, id")]
    digest = hashlib.sha256("\n\n".join(texts).encode()).hexdigest()  # type: ignore[arg-type]
    assert _sql(col, "SELECT content_sha256 FROM documents")[0][0] == digest
    second = col.get_document(added["document"]["id"])["items"][1]["id"]
    assert col.delete_item(item_id)["document_deleted"] is False
    gone = col.delete_item(second)
    assert gone["document_deleted"] is True
    assert _sql(col, "SELECT count(*) FROM documents")[0][0] == 0
    assert _sql(col, "SELECT count(*) FROM items_fts")[0][0] == 0


def test_delete_document_removes_its_items(col: Collection) -> None:
    doc = col.add_item_text("\n\n".join("y" * 1500 for _ in range(3)), "d.txt")["document"]
    other = col.add_item_text("残る", "e.txt")["document"]
    deleted = col.delete_document(doc["id"])
    assert deleted["items_deleted"] == 3
    assert _sql(col, "SELECT DISTINCT document_id FROM items") == [(other["id"],)]
    with pytest.raises(PMGSQueryError) as caught:
        col.get_document(doc["id"])
    assert caught.value.code == "DOCUMENT_NOT_FOUND"


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda c: c.get_item_by_id(999), "ITEM_NOT_FOUND"),
        (lambda c: c.get_item_by_id(0), "ITEM_NOT_FOUND"),
        (lambda c: c.update_item(999, "x"), "ITEM_NOT_FOUND"),
        (lambda c: c.delete_item(-3), "ITEM_NOT_FOUND"),
        (lambda c: c.delete_document(999), "DOCUMENT_NOT_FOUND"),
        (lambda c: c.find_document("nothing.txt"), "DOCUMENT_NOT_FOUND"),
    ],
)
def test_missing_ids(col: Collection, call: object, code: str) -> None:
    col.add_item_text("x", "x.txt")
    with pytest.raises(PMGSQueryError) as caught:
        call(col)  # type: ignore[operator]
    assert caught.value.code == code


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"path": ""}, "INVALID_PATH"),
        ({"path": "  "}, "INVALID_PATH"),
        ({"path": "a\nb"}, "INVALID_PATH"),
        ({"path": "a\x00b"}, "INVALID_PATH"),
        ({"path": "x" * (MAX_PATH_CHARS + 1)}, "INVALID_PATH"),
        ({"path": 5}, "INVALID_PATH"),
        ({"category": "c" * 101}, "INVALID_CATEGORY"),
        ({"category": "a\tb"}, "INVALID_CATEGORY"),
        ({"content": ""}, "INVALID_CONTENT"),
        ({"content": "a\x00b"}, "INVALID_CONTENT"),
        ({"content": "bad \ud800 surrogate"}, "INVALID_CONTENT"),
        ({"content": "x" * 1_000_001}, "ITEM_TOO_LARGE"),
        ({"mime": "a\nb"}, "INVALID_ARGUMENT"),
    ],
)
def test_bad_input_changes_nothing(col: Collection, kwargs: dict[str, object], code: str) -> None:
    col.add_item_text("before", "keep.txt")
    before = _sql(col, "SELECT * FROM items"), _sql(col, "SELECT * FROM documents")
    args: dict[str, object] = {"content": "text", "path": "new.txt", **kwargs}
    with pytest.raises(PMGSQueryError) as caught:
        col.add_item_text(**args)  # type: ignore[arg-type]
    assert caught.value.code == code
    assert (_sql(col, "SELECT * FROM items"), _sql(col, "SELECT * FROM documents")) == before


def test_update_item_size_bound(col: Collection) -> None:
    item = col.add_item_text("x", "x.txt")["item_ids"][0]
    with pytest.raises(PMGSQueryError) as caught:
        col.update_item(item, "y" * 20_001)
    assert caught.value.code == "ITEM_TOO_LARGE"
    assert col.update_item(item, "y" * 20_000)["content"] == "y" * 20_000


def test_item_limit_of_the_collection(tmp_path: Path) -> None:
    with Collection(tmp_path / "c.sqlite", max_items=3) as col:
        col.add_item_text("a", "a.txt")
        col.add_item_text("\n\n".join("b" * 1500 for _ in range(2)), "b.txt")
        with pytest.raises(PMGSQueryError) as caught:
            col.add_item_text("c", "c.txt")
        assert caught.value.code == "TOO_MANY_ITEMS"
        assert col.get_item_count() == 3
        # Replacing a document frees its own items first, so it fits.
        assert col.put_document("b2", "b.txt")["status"] == "replaced"


def test_put_document_is_idempotent(col: Collection) -> None:
    assert col.put_document("本文", "p.md", category="k")["status"] == "added"
    assert col.put_document("本文", "p.md", category="k")["status"] == "unchanged"
    assert col.put_document("本文", "p.md", category="other")["status"] == "replaced"
    assert col.put_document("新しい本文", "p.md", category="other")["status"] == "replaced"
    assert _sql(col, "SELECT content FROM items") == [("新しい本文",)]


# --- schema and re-index -----------------------------------------------------------------------


def test_schema_version_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    Collection(path).close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == COLLECTION_SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    Collection(path).close()  # migrating again is a no-op
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {COLLECTION_SCHEMA_VERSION + 1}")
    with pytest.raises(PMGSQueryError) as caught:
        Collection(path)
    assert caught.value.code == "COLLECTION_ERROR"


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(PMGSQueryError) as caught:
        Collection(path)
    assert caught.value.code == "COLLECTION_ERROR"
    assert path.read_bytes() == b"this is not sqlite" * 100


def test_reindex_repairs_a_damaged_index(col: Collection) -> None:
    col.add_item_text("修復される索引", "r.txt")
    with sqlite3.connect(col.path) as conn:  # damage: folded text and index both wiped
        conn.execute("DROP TRIGGER items_au")
        conn.execute("UPDATE items SET folded = ''")
        conn.execute("INSERT INTO items_fts(items_fts) VALUES ('rebuild')")
    assert col.search_text("修復")["items"] == []
    assert col.reindex_collection()["items_indexed"] == 1
    assert [i["path"] for i in col.search_text("修復 索引")["items"]] == ["r.txt"]
    assert col.indexing_status() == {"status": "idle"}
    # The dropped trigger is back: an update reaches the index again.
    item = col.search_text("修復")["items"][0]["id"]
    col.update_item(item, "差し替えた本文")
    assert col.search_text("修復")["items"] == []
    assert [i["id"] for i in col.search_text("差し替えた")["items"]] == [item]


def test_answers_match_their_json_schemas(col: Collection) -> None:
    import jsonschema

    from pmgs_core import COLLECTION_RECORD_NAMES, collection_json_schema

    added = col.add_item_text("スキーマの確認\n\n二つ目", "s.md", category="c")
    item = added["item_ids"][0]
    answers = [
        added,
        col.put_document("別の文書", "t.txt"),
        col.get_item_by_id(item),
        col.list_documents(),
        col.get_document(added["document"]["id"]),
        col.list_categories(),
        col.search_text("スキーマ 確認"),
        col.reindex_collection(),
        col.update_item(item, "更新"),
        col.delete_item(item),
        col.delete_document(2),
    ]
    seen = set()
    for answer in answers:
        schema = collection_json_schema(answer["record_type"])
        jsonschema.validate(answer, schema)
        seen.add(answer["record_type"])
    assert seen == set(COLLECTION_RECORD_NAMES)
    broken = dict(answers[6])
    broken["vector_search_used"] = "yes"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, collection_json_schema("collection_search"))
