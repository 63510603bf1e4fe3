"""Search pages a reader can use (issue 29, ADR 0022): one hit per IPC code across editions,
schemes interleaved so that FI is on the first page, an IPC edition filter.

The generated package stores F-term, then IPC in all seven editions, then FI, so package
order alone put every IPC hit before the first FI one. Expectations are written by hand
(the alternation of schemes, the editions of one code seen in the package) or computed here
with SQL, never by the search code.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pmgs_core import PMGSQueryError, PMGSStore, load_schema
from pmgs_core.building import fold_for_search
from pmgs_core.schema import rebuild_search_indexes

EDITIONS = ("8U", "8B", "7", "7E", "6", "5", "4")
"""Preferred first: written here, not imported."""


def _editions_in_sql(ro_conn: sqlite3.Connection, code: str, word: str) -> list[str]:
    found = {
        edition
        for edition, body in ro_conn.execute(
            "SELECT c.edition, x.body FROM concept AS c JOIN revision AS r ON r.concept_id = c.id "
            "JOIN text AS x ON x.revision_id = r.id WHERE c.scheme = 'ipc' AND c.code = ? "
            "AND c.status = 'canonical' AND x.language = 'ja'",
            (code,),
        )
        if fold_for_search(word) in fold_for_search(body)
    }
    return [edition for edition in EDITIONS if edition in found]


def _all_hits(store: PMGSStore, word: str, **kwargs: Any) -> list[Any]:
    hits: list[Any] = []
    offset: int | None = 0
    while offset is not None:
        page = store.search(word, limit=9, offset=offset, **kwargs)
        hits += page["results"]
        offset = page["next_offset"]
    return hits


def test_fi_hits_share_the_first_page_with_ipc(store: PMGSStore, examples: dict[str, str]) -> None:
    word = examples["two_char_word"]  # 電池: in F-term, IPC (several editions) and FI texts
    page = store.search(word, schemes=["ipc", "fi"], limit=20)
    assert page["scheme_merge"] == "interleaved"
    assert page["schemes"] == ["fi", "ipc"]
    assert [hit["scheme"] for hit in page["results"]] == ["fi", "ipc"] * 10
    codes = [(hit["scheme"], hit["code"]) for hit in page["results"]]
    assert len(codes) == len(set(codes)), "a code is two hits"
    jsonschema.validate(page, load_schema("classification_search_page"))
    single = store.search(word, schemes=["ipc"], limit=5)
    assert single["scheme_merge"] == "single"


def test_an_ipc_code_in_several_editions_is_one_hit_listing_them(
    store: PMGSStore, ro_conn: sqlite3.Connection, examples: dict[str, str]
) -> None:
    word = examples["two_char_word"]
    hits = _all_hits(store, word, schemes=["ipc"])
    codes = [hit["code"] for hit in hits]
    assert len(codes) == len(set(codes))
    for hit in hits:
        expected = _editions_in_sql(ro_conn, hit["code"], word)
        assert hit["editions"] == expected, hit["code"]
        assert hit["edition"] == expected[0]
        for match in hit["matches"]:
            assert set(match["editions"]) <= set(expected)
    # Seen in the generated package: A27Q1/08 says 電池 in editions 8U and 6 (other texts).
    by_code = {hit["code"]: hit for hit in hits}
    assert by_code["A27Q1/08"]["editions"] == ["8U", "6"]
    assert [m["editions"] for m in by_code["A27Q1/08"]["matches"]] == [["8U"], ["6"]]


def test_ipc_edition_filter(
    store: PMGSStore, ro_conn: sqlite3.Connection, examples: dict[str, str]
) -> None:
    word = examples["two_char_word"]
    hits = _all_hits(store, word, schemes=["ipc"], ipc_editions=["6"])
    expected = {
        code
        for (code,) in ro_conn.execute(
            "SELECT DISTINCT c.code FROM concept AS c JOIN revision AS r ON r.concept_id = c.id "
            "JOIN text AS x ON x.revision_id = r.id WHERE c.scheme = 'ipc' AND c.edition = '6' "
            "AND c.status = 'canonical' AND x.language = 'ja' AND instr(x.body, ?) > 0",
            (word,),
        )
    }
    assert {hit["code"] for hit in hits} == expected
    assert all(hit["editions"] == ["6"] and hit["edition"] == "6" for hit in hits)
    page = store.search(word, schemes=["fi", "ipc"], ipc_editions=["6", "8u"], limit=4)
    assert page["ipc_editions"] == ["8U", "6"]
    assert any(hit["scheme"] == "fi" for hit in page["results"]), "FI is not filtered"
    with pytest.raises(PMGSQueryError) as caught:
        store.search(word, ipc_editions=["9"])
    assert caught.value.code == "INVALID_EDITION"


def test_relevance_order_interleaves_and_scores_over_all_schemes(
    store: PMGSStore, examples: dict[str, str]
) -> None:
    word = examples["two_char_word"]
    page = store.search(word, schemes=["fi", "ipc"], order="relevance", limit=10)
    assert [hit["scheme"] for hit in page["results"]] == ["fi", "ipc"] * 5
    codes = [hit["code"] for hit in page["results"] if hit["scheme"] == "ipc"]
    assert len(codes) == len(set(codes))
    scores = [hit["score"] for hit in page["results"]]
    assert max(scores) == 1.0  # each scheme's best is on the first page
    for scheme in ("fi", "ipc"):
        mine = [hit["score"] for hit in page["results"] if hit["scheme"] == scheme]
        assert mine == sorted(mine, reverse=True)


@pytest.fixture
def same_text_store(writable_copy: Path, tmp_path: Path) -> Iterator[PMGSStore]:
    """The generated database with A27Q1/08's IPC 6 text made equal to its 8U text."""
    conn = sqlite3.connect(writable_copy)
    (body,) = conn.execute(
        "SELECT x.body FROM text AS x JOIN revision AS r ON r.id = x.revision_id "
        "JOIN concept AS c ON c.id = r.concept_id "
        "WHERE c.scheme = 'ipc' AND c.edition = '8U' AND c.code = 'A27Q1/08' AND x.language = 'ja'"
    ).fetchone()
    conn.execute(
        "UPDATE text SET body = ? WHERE language = 'ja' AND revision_id IN (SELECT r.id FROM "
        "revision AS r JOIN concept AS c ON c.id = r.concept_id WHERE c.scheme = 'ipc' "
        "AND c.edition IN ('6', '4') AND c.code = 'A27Q1/08')",
        (body,),
    )
    conn.commit()
    rebuild_search_indexes(conn)
    conn.commit()
    conn.close()
    shutil.copyfile(writable_copy, tmp_path / "same.sqlite")
    with PMGSStore.open(tmp_path / "same.sqlite") as opened:
        yield opened


def test_a_text_equal_in_several_editions_is_one_match(same_text_store: PMGSStore) -> None:
    hits = _all_hits(same_text_store, "電池の容器", schemes=["ipc"])
    hit = next(hit for hit in hits if hit["code"] == "A27Q1/08")
    assert hit["edition"] == "8U"
    assert hit["editions"] == ["8U", "6", "4"]
    assert len(hit["matches"]) == 1
    assert hit["matches"][0]["editions"] == ["8U", "6", "4"]
    assert hit["matches"][0]["source"]["file"].startswith("IPC/IPC8U_TEXT/")
    ranked = same_text_store.search("電池の容器", schemes=["ipc"], order="relevance")
    codes = [h["code"] for h in ranked["results"]]
    assert codes.count("A27Q1/08") == 1


def test_scheme_text_ranges_bound_every_row_of_the_scheme(
    store: PMGSStore, ro_conn: sqlite3.Connection
) -> None:
    from pmgs_core.search._codes import text_range

    stream = store._search_reader().stream
    for scheme in ("fi", "fterm", "ipc"):
        for language in ("ja", "en"):
            expected = ro_conn.execute(
                "SELECT min(x.id), max(x.id) FROM text x JOIN revision r ON r.id = x.revision_id "
                "JOIN concept c ON c.id = r.concept_id WHERE c.scheme = ? AND x.language = ?",
                (scheme, language),
            ).fetchone()
            assert text_range(stream, scheme, language) == expected
            assert text_range(stream, scheme, language) == expected  # the cached answer
