"""What a server warms at start is what the first search would have computed (ADR 0038).

The oracle is SQL written here (one grouped scan, not the search package's per-scheme
statement): each scheme's first and last text row id in each language.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pmgs_core import PMGSStore
from pmgs_core.search import _codes


def _oracle(database: Path) -> dict[tuple[str, str], tuple[int, int]]:
    connection = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = connection.execute(
            "SELECT c.scheme, t.language, min(t.id), max(t.id) FROM text AS t "
            "JOIN revision AS r ON r.id = t.revision_id JOIN concept AS c ON c.id = r.concept_id "
            "GROUP BY c.scheme, t.language"
        ).fetchall()
    finally:
        connection.close()
    return {(scheme, language): (first, last) for scheme, language, first, last in rows}


def _warmed(database: Path) -> dict[tuple[str, str], tuple[int, int]]:
    path = str(database.resolve())
    return {
        (scheme, language): found
        for (file, _digest, scheme, language), found in _codes._RANGES.items()
        if file == path
    }


@pytest.mark.parametrize("background", [False, True])
def test_warm_up_fills_every_range_the_first_search_reads(
    database_path: Path, monkeypatch: pytest.MonkeyPatch, background: bool
) -> None:
    monkeypatch.setattr(_codes, "_RANGES", {})
    with PMGSStore.open(database_path) as store:
        assert store.wait_warm(0)  # nothing started: nothing to wait for
        store.warm_up(background=background)
        assert store.wait_warm(60)
        if store._warming is not None:
            store._warming.join(60)  # the other language's ranges follow the signal
        expected = _oracle(database_path)
        warmed = _warmed(database_path)
        assert warmed == {
            (scheme, language): expected.get((scheme, language), (1, 0))
            for scheme in ("fi", "fterm", "ipc")
            for language in ("ja", "en")
        }
        # a search after the warm-up reads them from the cache and adds none
        store.search_pmgs("装置")
        assert _warmed(database_path) == warmed


def test_a_search_answers_the_same_warm_or_cold(
    database_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_codes, "_RANGES", {})
    with PMGSStore.open(database_path) as store:
        cold = store.search_pmgs("装置", language="en"), store.search_pmgs("装置")
    monkeypatch.setattr(_codes, "_RANGES", {})
    with PMGSStore.open(database_path) as store:
        store.warm_up(background=False)
        assert (store.search_pmgs("装置", language="en"), store.search_pmgs("装置")) == cold


def test_a_failed_warm_up_leaves_the_work_to_the_first_search(
    database_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_codes, "_RANGES", {})

    def broken(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(_codes, "text_ranges", broken)
    with PMGSStore.open(database_path) as store:
        store.warm_up(background=False)
        assert store.wait_warm(0)
        monkeypatch.undo()
        monkeypatch.setattr(_codes, "_RANGES", {})
        assert store.search_pmgs("装置")["record_type"] == "combined_search_page"
