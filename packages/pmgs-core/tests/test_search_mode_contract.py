"""``search_mode`` takes only the values the interface contract lists (issue 27).

The contract (``local-interfaces.md``, 文字列検索) says: 3+ character terms use the FTS5
trigram index, a query holding a 1 or 2 character term switches to an escaped literal
substring match, and ``search_mode`` is one of three values, ``mixed_lexical`` only where an
MCP search's classifications and documents took different routes. Its list is copied here by
hand; :data:`pmgs_core.SEARCH_MODES` is the one table the code uses, and every route of every
search method is checked against it, with the expected route and index written by hand.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any, get_args

import pytest

from pmgs_core import SEARCH_INDEXES, SEARCH_MODES, PMGSStore, SearchIndex, SearchMode

CONTRACT_SEARCH_MODES = (
    "sqlite_fts5_trigram_lexical",
    "sqlite_literal_substring_lexical",
    "mixed_lexical",
)
"""Copied by hand from the seed contract's list, in its order."""

TRIGRAM = "sqlite_fts5_trigram_lexical"
LITERAL = "sqlite_literal_substring_lexical"


def test_the_one_table_is_the_contracts_list() -> None:
    assert SEARCH_MODES == CONTRACT_SEARCH_MODES
    assert get_args(SearchMode) == CONTRACT_SEARCH_MODES
    assert get_args(SearchIndex) == SEARCH_INDEXES
    assert not set(SEARCH_INDEXES) & set(CONTRACT_SEARCH_MODES)


def _schema_values(node: Any, defs: dict[str, Any], name: str) -> list[list[str]]:
    """The enums every property ``name`` of the records schema allows (refs resolved)."""
    found: list[list[str]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == name and isinstance(value, dict):
                target = value
                if "$ref" in target:
                    target = defs[target["$ref"].rsplit("/", 1)[1]]
                found.append(list(target["enum"]))
            else:
                found += _schema_values(value, defs, name)
    elif isinstance(node, list):
        for item in node:
            found += _schema_values(item, defs, name)
    return found


def test_every_json_schema_enum_is_the_contracts_list() -> None:
    schema = json.loads(
        files("pmgs_core").joinpath("schemas/records.schema.json").read_text("utf-8")
    )
    enums = _schema_values(schema["$defs"], schema["$defs"], "search_mode")
    assert len(enums) == 5  # the definition; classification, document, combined, search_text
    assert all(enum == list(CONTRACT_SEARCH_MODES) for enum in enums)
    for enum in _schema_values(schema["$defs"], schema["$defs"], "index"):
        assert set(enum) <= set(SEARCH_INDEXES)


def _modes(value: Any) -> list[tuple[str, str]]:
    """Every (search_mode, index) pair in an answer, the nested pages included."""
    pairs: list[tuple[str, str]] = []
    if isinstance(value, dict):
        if "search_mode" in value:
            pairs.append((value["search_mode"], value["index"]))
        for item in value.values():
            pairs += _modes(item)
    return pairs


# (query kind, expected search_mode, expected index): by the contract's length rule.
ROUTES: list[tuple[str, str, str]] = [
    ("phrase", TRIGRAM, "fts5_trigram"),
    ("two", LITERAL, "fts5_bigram"),
    ("one", LITERAL, "substring_scan"),
    ("two_and_phrase", LITERAL, "mixed"),
    ("blank", LITERAL, "none"),
]


def _query(kind: str, examples: dict[str, str]) -> str:
    word, phrase = examples["two_char_word"], examples["common_phrase"]
    return {
        "phrase": phrase,
        "two": word,
        "one": word[0],
        "two_and_phrase": f"{word} {phrase}",
        "blank": "   ",
    }[kind]


@pytest.mark.parametrize(("kind", "mode", "index"), ROUTES)
def test_every_search_method_reports_the_contracts_route(
    store: PMGSStore, examples: dict[str, str], kind: str, mode: str, index: str
) -> None:
    query = _query(kind, examples)
    answers = {
        "search": store.search(query, limit=3),
        "search_documents": store.search_documents(query, limit=3),
        "search_pmgs": store.search_pmgs(query, limit=3),
        "search_pmgs_documents": store.search_pmgs(query, content_types=["document"], limit=3),
    }
    for method, answer in answers.items():
        pairs = _modes(answer)
        assert pairs, method
        assert all(pair == (mode, index) for pair in pairs), (method, pairs)


@pytest.mark.parametrize(("kind", "mode", "_index"), ROUTES)
def test_ranked_routes_keep_the_contracts_mode(
    store: PMGSStore, examples: dict[str, str], kind: str, mode: str, _index: str
) -> None:
    query = _query(kind, examples)
    expected_index = "none" if kind == "blank" else "fts5_bm25"
    answers = [
        store.search(query, order="relevance", limit=3),
        store.search_pmgs(query, order="relevance", match="any", limit=3),
        store.search_text(query, min_score=0.0),
    ]
    for answer in answers:
        pairs = _modes(answer)
        assert pairs
        assert all(pair == (mode, expected_index) for pair in pairs), pairs


def test_mixed_lexical_never_comes_from_one_content_type(
    store: PMGSStore, examples: dict[str, str]
) -> None:
    """Terms of different lengths in one query are the literal route, never ``mixed``."""
    query = _query("two_and_phrase", examples)
    for answer in (store.search(query), store.search_documents(query)):
        assert answer["search_mode"] == LITERAL
