"""``search_pmgs`` does not dead-end, over a real stdio session (issue 39, ADR 0033).

The 20 hand-written phrases of :data:`pmgs_testkit.phrases.PHRASES`, asked with the tool's
defaults (concise, 4 hits per type), each name their words in ``fallback.words`` and find the
code whose title they paraphrase; the text copy says the same (it reads back to the
structured content, words included). A code gets ``code_matches`` whose scheme and code are
the arguments of a ``lookup_classification`` call that answers it; an English word on a
Japanese search gets ``other_language`` with the count a search in English returns.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from test_answer_text import _same, read_back

from pmgs_testkit.kit import ReferenceDatabase
from pmgs_testkit.phrases import PHRASE_SCALE, PHRASES, phrase_targets
from pmgs_testkit.pytest_plugin import ReferenceFactory

Call = tuple[str, dict[str, Any]]


async def _session(db: str, calls: list[Call]) -> list[tuple[str, dict[str, Any]]]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "pmgs_mcp", "--db", db])
    out = []
    async with Client(params, read_timeout_seconds=60.0) as client:
        for tool, arguments in calls:
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, result.content
            out.append((result.content[0].text, result.structured_content))  # type: ignore[union-attr]
    return out


@pytest.fixture(scope="module")
def phrase_db(pmgs_reference_factory: ReferenceFactory) -> ReferenceDatabase:
    return pmgs_reference_factory(PHRASE_SCALE, 7)


@pytest.fixture(scope="module")
def phrase_answers(phrase_db: ReferenceDatabase) -> list[tuple[str, dict[str, Any]]]:
    calls: list[Call] = [("search_pmgs", {"query": phrase}) for phrase, _, _ in PHRASES]
    return anyio.run(_session, str(phrase_db.db), calls)


@pytest.mark.parametrize("index", range(len(PHRASES)), ids=[p[0] for p in PHRASES])
def test_phrase_names_its_words_and_finds_the_code(
    phrase_db: ReferenceDatabase,
    phrase_answers: list[tuple[str, dict[str, Any]]],
    index: int,
) -> None:
    _, title, words = PHRASES[index]
    text, structured = phrase_answers[index]
    assert structured["fallback"]["words"] == list(words)
    assert structured["fallback"]["reason"] == "no_exact_match"
    hits = structured["results_by_type"]["classification"]["results"]
    found = {(hit["scheme"], hit["code"]) for hit in hits}
    assert found & phrase_targets(phrase_db.db, title), hits
    # The text copy carries the same facts: it reads back to the structured content.
    _same(read_back(text, structured), structured)
    assert f"words[{len(words)}]: {','.join(words)}" in text


def test_code_other_language_and_opt_out(phrase_db: ReferenceDatabase) -> None:
    calls: list[Call] = [
        ("search_pmgs", {"query": "G06F 3/048"}),
        ("search_pmgs", {"query": "control"}),
        ("search_pmgs", {"query": "control", "language": "en", "limit": 20, "detail": "full"}),
        ("search_pmgs", {"query": PHRASES[0][0], "fallback": False}),
    ]
    answers = anyio.run(_session, str(phrase_db.db), calls)
    (code_text, code), (other_text, other), (_, english), (_, plain) = answers
    matches = code["code_matches"]
    assert {"scheme": "fi", "code": "G06F3/048"}.items() <= matches[0].items()
    # The text copy says the same (its rows hold the members of each match).
    assert f"code_matches[{len(matches)}]{{" in code_text
    assert "\n  fi|G06F3/048|normalized_exact|/fi/G06F3/048|\n" in code_text
    assert "fallback" not in code
    # The match's scheme and code are the arguments of a lookup that answers it.
    arguments = {"scheme": matches[0]["scheme"], "code": matches[0]["code"]}
    ((_, record),) = anyio.run(_session, str(phrase_db.db), [("lookup_classification", arguments)])
    assert record["code"] == "G06F3/048"
    assert record["match_status"] == "exact"
    classifications = english["results_by_type"]["classification"]
    assert other["other_language"]["language"] == "en"
    assert other["other_language"]["classification_count"] == len(classifications["results"])
    assert other["other_language"]["at_least"] is True
    counts = other["other_language"]
    assert (
        "other_language:\n  language: en\n"
        f"  classification_count: {counts['classification_count']}\n"
        f"  document_count: {counts['document_count']}\n  at_least: true\n"
    ) in other_text
    assert "fallback" not in plain
    assert not plain["results_by_type"]["classification"].get("results")
