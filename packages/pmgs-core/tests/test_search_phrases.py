"""Issue 39, Find: a phrase is split into the words it is written with, and a search with
``fallback=True`` does not dead-end (ADR 0033).

The oracles are hand-written: the word table below, and :data:`pmgs_testkit.phrases.PHRASES`
(20 natural phrases against titles the generator produces, the expected codes read by SQL).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from pmgs_core import PMGSStore
from pmgs_core.search import split_words
from pmgs_testkit.kit import ReferenceDatabase
from pmgs_testkit.phrases import PHRASE_SCALE, PHRASES, phrase_targets
from pmgs_testkit.pytest_plugin import ReferenceFactory

# (phrase, the words kept, how): each row is one rule of ADR 0033.
WORDS = [
    ("燃料噴射を制御する装置", ("燃料噴射", "制御", "装置"), "sudachi"),  # を, する dropped
    # Nouns written together stay one word (a compound is not cut); 二 + 次: number + suffix.
    ("リチウムイオン二次電池の負極材料", ("リチウムイオン二次電池", "負極材料"), "sudachi"),
    ("電池を用いた樹脂", ("電池", "用い", "樹脂"), "sudachi"),  # a verb as written, た dropped
    ("画像を扱うシステム", ("画像", "扱う", "システム"), "sudachi"),  # a verb is its own word
    ("記録するための回路", ("記録", "回路"), "sudachi"),  # ため: a hiragana adverbial noun
    ("車両の照明を制御するもの", ("車両", "照明", "制御"), "sudachi"),  # もの: a formal noun
    ("音響装置について", ("音響装置",), "sudachi"),  # つい: a verb in hiragana only
    ("弁体の構造", ("弁体", "構造"), "sudachi"),  # 弁 + 体: one word as written
    ("電気的な接続", ("電気", "接続"), "sudachi"),  # 的: a suffix after a word ends it
    ("２つの歯車", ("２つ", "歯車"), "sudachi"),  # つ: a suffix after a number joins it
    ("大きい電極と新しい樹脂", ("大きい", "電極", "新しい", "樹脂"), "sudachi"),  # adjectives
    ("負極 バインダー", ("負極", "バインダー"), "whitespace"),  # spaced words stay as typed
    ("冷却装置 樹脂", ("冷却装置", "樹脂"), "whitespace"),  # a compound between spaces too
    ("control of battery", ("control", "of", "battery"), "whitespace"),  # no Japanese script
    ("G06F 3/048", ("G06F", "3/048"), "whitespace"),
    ("の", ("の",), "whitespace"),  # nothing kept: the chunk stays rather than vanish
    ("電池 電池", ("電池",), "whitespace"),  # each word once
]


@pytest.mark.parametrize(("phrase", "words", "method"), WORDS)
def test_phrase_words(phrase: str, words: tuple[str, ...], method: str) -> None:
    split = split_words(phrase)
    assert split.words == words
    assert split.method == method


@pytest.fixture(scope="module")
def phrase_reference(pmgs_reference_factory: ReferenceFactory) -> ReferenceDatabase:
    return pmgs_reference_factory(PHRASE_SCALE, 7)


@pytest.fixture(scope="module")
def phrase_store(phrase_reference: ReferenceDatabase) -> PMGSStore:
    return PMGSStore.open(phrase_reference.db)


@pytest.mark.parametrize(("phrase", "title", "words"), PHRASES, ids=[p[0] for p in PHRASES])
def test_natural_phrase_finds_the_code_it_paraphrases(
    phrase_store: PMGSStore,
    phrase_reference: ReferenceDatabase,
    phrase: str,
    title: str,
    words: tuple[str, ...],
) -> None:
    targets = phrase_targets(phrase_reference.db, title)
    assert targets, f"the oracle's title {title!r} is not in the reference"
    exact = phrase_store.search_pmgs(phrase, limit=4)
    assert all(not page["results"] for page in exact["results_by_type"].values())
    # Page one at the MCP tool's page size (4 per type, schemes interleaved).
    page = phrase_store.search_pmgs(phrase, limit=4, fallback=True)
    assert page["fallback"] == {
        "reason": "no_exact_match",
        "words": list(words),
        "word_split": "sudachi",
        "match": "any",
        "order": "relevance",
    }
    classifications = page["results_by_type"]["classification"]
    assert [term["term"] for term in classifications["terms"]] == list(words)
    assert (classifications["match"], classifications["order"]) == ("any", "relevance")
    assert classifications["word_split"] == "sudachi"
    hits = {(hit["scheme"], hit["code"]) for hit in classifications["results"]}
    assert hits & targets, (phrase, classifications["results"])


def test_without_fallback_the_answer_is_unchanged(store: PMGSStore) -> None:
    phrase = PHRASES[0][0]
    plain = store.search_pmgs(phrase, limit=5)
    assert plain == store.search_pmgs(phrase, limit=5, fallback=False)
    assert "fallback" not in plain
    assert "other_language" not in plain
    assert all(not page["results"] for page in plain["results_by_type"].values())


def test_an_exact_hit_takes_no_fallback(store: PMGSStore, examples: dict[str, str]) -> None:
    phrase = examples["common_phrase"]
    page = store.search_pmgs(phrase, limit=5, fallback=True)
    assert page == store.search_pmgs(phrase, limit=5)
    assert page["results_by_type"]["classification"]["results"]


def test_fallback_pages_are_the_any_word_search(store: PMGSStore) -> None:
    phrase = "電池を冷却するための装置"
    for offset in (0, 4):
        fallen = store.search_pmgs(phrase, limit=4, fallback=True, classification_offset=offset)
        direct = store.search_pmgs(
            phrase, limit=4, match="any", order="relevance", classification_offset=offset
        )
        assert fallen["fallback"]["words"] == ["電池", "冷却", "装置"]
        assert fallen["results_by_type"] == direct["results_by_type"]


def _one(connection: sqlite3.Connection, sql: str) -> str:
    row = connection.execute(sql).fetchone()
    assert row is not None
    return str(row[0])


def test_a_code_in_any_notation_is_a_lookup_hint(
    store: PMGSStore, ro_conn: sqlite3.Connection
) -> None:
    fi = _one(
        ro_conn,
        "SELECT code FROM concept WHERE scheme = 'fi' AND status = 'canonical' "
        "AND code GLOB '[A-H][0-9][0-9][A-Z][0-9]*/[0-9]*' AND code NOT GLOB '*[,@]*' "
        "ORDER BY id LIMIT 1",
    )
    spaced = f"{fi[:4]} {fi[4:]}"  # G06F 3/048
    page = store.search_pmgs(spaced, fallback=True)
    matches = {(m["scheme"], m["code"]) for m in page["code_matches"]}
    assert ("fi", fi) in matches
    fi_match = next(m for m in page["code_matches"] if m["scheme"] == "fi")
    assert fi_match["viewer_path"] == f"/fi/{fi}"
    assert fi_match["match_status"] == "normalized_exact"
    assert "fallback" not in page  # a code is not split into words
    term = _one(
        ro_conn,
        "SELECT code FROM concept WHERE scheme = 'fterm' AND status = 'canonical' "
        "AND length(code) = 9 ORDER BY id LIMIT 1",
    )
    fterm = store.search_pmgs(term, fallback=True)
    assert [(m["scheme"], m["code"]) for m in fterm["code_matches"]] == [("fterm", term)]
    # Without fallback, or for a code the release does not hold, nothing is said.
    assert "code_matches" not in store.search_pmgs(spaced)
    assert "code_matches" not in store.search_pmgs("Z99Z 99/999", fallback=True)


def test_other_language_counts_its_hits(store: PMGSStore) -> None:
    page = store.search_pmgs("control", fallback=True)
    assert all(not typed["results"] for typed in page["results_by_type"].values())
    english = store.search_pmgs("control", language="en", limit=20)
    by_type = english["results_by_type"]
    expected = {
        "language": "en",
        "classification_count": len(by_type["classification"]["results"]),
        "document_count": len(by_type["document"]["results"]),
        "at_least": by_type["classification"]["has_more"] or by_type["document"]["has_more"],
    }
    assert expected["classification_count"] > 0
    assert page["other_language"] == expected
    # The reverse: a Japanese word on an English search.
    reverse = store.search_pmgs("電池", language="en", fallback=True)
    assert reverse["other_language"]["language"] == "ja"
    assert reverse["other_language"]["classification_count"] > 0
    # Found in its own language: no other_language.
    assert "other_language" not in store.search_pmgs("control", language="en", fallback=True)


def test_fallback_must_be_a_bool(store: PMGSStore) -> None:
    from pmgs_core import PMGSQueryError

    with pytest.raises(PMGSQueryError) as raised:
        store.search_pmgs("電池", fallback="yes")  # type: ignore[arg-type]
    assert raised.value.code == "INVALID_ARGUMENT"


_PROBE = """
import json, sys
from pmgs_core import PMGSStore
store = PMGSStore.open(sys.argv[1])
store.lookup("fi", "A")
store.search_pmgs("電池", limit=2)
store.search_pmgs("電池を冷却する装置", limit=2, match="all")
before = "sudachipy" in sys.modules
page = store.search_pmgs("電池を冷却する装置", limit=2, fallback=True)
spaced = store.search_pmgs("電池 冷却する装置", limit=2, fallback=True)
print(json.dumps({"before": before, "after": "sudachipy" in sys.modules,
                  "fallback": page.get("fallback"), "spaced": spaced.get("fallback")}))
"""


def test_the_analyser_stays_out_of_lookup_and_plain_search(reference: ReferenceDatabase) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(reference.db)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    answer = json.loads(out)
    assert answer["before"] is False
    assert answer["after"] is True
    assert answer["fallback"]["words"] == ["電池", "冷却", "装置"]


def test_without_the_analyser_words_are_split_on_whitespace(reference: ReferenceDatabase) -> None:
    blocked = "import sys; sys.modules['sudachipy'] = None\n" + _PROBE
    out = subprocess.run(
        [sys.executable, "-c", blocked, str(reference.db)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    answer = json.loads(out)
    # One chunk, the same as asked: there is no other word to fall back to.
    assert answer["fallback"] is None
    # Spaced words still fall back to the any-word search, of the chunks as typed.
    assert answer["spaced"]["words"] == ["電池", "冷却する装置"]
    assert answer["spaced"]["word_split"] == "whitespace"


def test_a_chunk_some_text_holds_stays_whole(store: PMGSStore, examples: dict[str, str]) -> None:
    """A phrase is cut only where no text holds it as written (ADR 0033): 制御するもの is
    written in many titles, so the any-word search keeps it whole, as it always did."""
    phrase = examples["common_phrase"]
    assert split_words(phrase).words == ("制御",)
    assert split_words(phrase, held=lambda chunk: True).words == (phrase,)
    assert split_words(phrase, held=lambda chunk: False).words == ("制御",)
    for answer in (
        store.search(phrase, match="any"),
        store.search_pmgs(f"{phrase} 電池を冷却する装置", match="any")["results_by_type"][
            "classification"
        ],
    ):
        terms = [term["term"] for term in answer["terms"]]
        assert terms[0] == phrase
    page = store.search_pmgs(f"{phrase} 電池を冷却する装置", match="any")
    classification = page["results_by_type"]["classification"]
    assert [t["term"] for t in classification["terms"]] == [phrase, "電池", "冷却", "装置"]
    assert classification["word_split"] == "sudachi"
    texts = store.search_text(phrase, min_score=0.0)
    assert texts["items"]
    assert all(phrase in item["content"] for item in texts["items"])
