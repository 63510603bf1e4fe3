"""``pmgs search`` does not dead-end (issue 39, ADR 0033).

The 20 hand-written phrases of :data:`pmgs_testkit.phrases.PHRASES` each name their words
and find the code whose title they paraphrase on page one; a code, an English word on a
Japanese search, and ``--any`` are run through ``pmgs`` and the commands it prints are run in
turn.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Callable

import pytest

from pmgs_testkit.kit import ReferenceDatabase
from pmgs_testkit.phrases import PHRASE_SCALE, PHRASES, phrase_targets
from pmgs_testkit.pytest_plugin import ReferenceFactory

Runner = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def phrase_db(pmgs_reference_factory: ReferenceFactory) -> ReferenceDatabase:
    return pmgs_reference_factory(PHRASE_SCALE, 7)


@pytest.mark.parametrize(("phrase", "title", "words"), PHRASES, ids=[p[0] for p in PHRASES])
def test_phrase_names_its_words_and_finds_the_code(
    pmgs: Runner, phrase_db: ReferenceDatabase, phrase: str, title: str, words: tuple[str, ...]
) -> None:
    targets = phrase_targets(phrase_db.db, title)
    text = pmgs("search", phrase, "--db", phrase_db.db, "--limit", "4")
    assert text.returncode == 0, text.stderr
    flat = " ".join(text.stdout.split())  # Rich may wrap the line
    assert (
        f"no text holds the exact phrase '{phrase}'; showing texts holding any of its words, "
        f"ranked by relevance: {', '.join(words)}"
    ) in flat
    result = pmgs("search", phrase, "--db", phrase_db.db, "--limit", "4", "--json")
    page = json.loads(result.stdout)
    assert page["fallback"]["words"] == list(words)
    hits = page["results_by_type"]["classification"]["results"]
    found = {(hit["scheme"], hit["code"]) for hit in hits} & targets
    assert found, hits
    assert any(f"{scheme} {code}" in text.stdout for scheme, code in found)


def _command(line: str) -> list[str]:
    """The argv after ``pmgs`` of the command a note ends with."""
    argv = shlex.split(line.split(": ", 1)[1].split(" (pmgs web", maxsplit=1)[0])
    assert argv[0] == "pmgs"
    return argv[1:]


def _note(stdout: str, start: str) -> str:
    """The note that begins with ``start``, its lines joined (Rich wraps at 160 columns)."""
    joined = " ".join(stdout.split())
    rest = joined[joined.index(start) :]
    marks = (" classifications", " documents:", " next:", " release JPPM")
    ends = [rest.find(mark) for mark in marks if mark in rest]
    return rest[: min(ends)] if ends else rest


def test_english_word_on_a_japanese_search_counts_and_runs(
    pmgs: Runner, phrase_db: ReferenceDatabase
) -> None:
    english = json.loads(
        pmgs("search", "control", "--db", phrase_db.db, "--language", "en", "--json").stdout
    )
    count = len(english["results_by_type"]["classification"]["results"])
    more = "+" if english["results_by_type"]["classification"]["has_more"] else ""
    result = pmgs("search", "control", "--db", phrase_db.db)
    assert result.returncode == 0
    note = _note(result.stdout, "the English texts hold")
    assert f"the English texts hold {count}{more} classification" in note
    argv = _command(note)
    assert argv[:4] == ["search", "control", "--language", "en"]
    again = pmgs(*argv, "--json")
    assert json.loads(again.stdout)["results_by_type"]["classification"]["results"]
    page = json.loads(pmgs("search", "control", "--db", phrase_db.db, "--json").stdout)
    assert page["other_language"]["language"] == "en"
    assert page["other_language"]["classification_count"] == count


def test_a_code_is_answered_with_its_lookup(pmgs: Runner, phrase_db: ReferenceDatabase) -> None:
    result = pmgs("search", "G06F 3/048", "--db", phrase_db.db)
    assert result.returncode == 0
    note = _note(result.stdout, "'G06F 3/048' is the FI code G06F3/048; use lookup:")
    argv = _command(note)
    assert argv[:3] == ["lookup", "fi", "G06F3/048"]
    lookup = json.loads(pmgs(*argv, "--json").stdout)
    assert (lookup["scheme"], lookup["code"]) == ("fi", "G06F3/048")
    assert "English texts are searched" not in result.stdout
    page = json.loads(pmgs("search", "G06F3/048", "--db", phrase_db.db, "--json").stdout)
    assert {(m["scheme"], m["code"]) for m in page["code_matches"]} >= {("fi", "G06F3/048")}


def test_no_fallback_is_the_search_as_asked(pmgs: Runner, phrase_db: ReferenceDatabase) -> None:
    phrase = PHRASES[0][0]
    page = json.loads(
        pmgs("search", phrase, "--db", phrase_db.db, "--no-fallback", "--json").stdout
    )
    assert "fallback" not in page
    assert not page["results_by_type"]["classification"]["results"]


def test_any_alone_ranks_by_relevance(pmgs: Runner, phrase_db: ReferenceDatabase) -> None:
    args = ("search", "電池 冷却", "--db", phrase_db.db, "--any", "--json", "--limit", "5")
    ranked = json.loads(pmgs(*args).stdout)["results_by_type"]["classification"]
    assert (ranked["order"], ranked["match"]) == ("relevance", "any")
    explicit = json.loads(pmgs(*args, "--rank", "relevance").stdout)
    assert explicit["results_by_type"]["classification"] == ranked
    kept = json.loads(pmgs(*args, "--rank", "index").stdout)["results_by_type"]
    assert kept["classification"]["order"] == "index"
    assert kept["classification"]["results"] != ranked["results"]
    assert "Default: relevance with --any" in " ".join(pmgs("search", "--help").stdout.split())
