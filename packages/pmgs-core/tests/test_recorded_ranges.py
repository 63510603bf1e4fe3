"""The build records each scheme's text row-id range; a store reads them and scans for none
(ADR 0041).

The oracle is SQL written here, one statement per scheme and language, not the grouped scan
the build runs: a recorded range that is wider lets a search read other schemes' rows, one
that is narrower hides hits, and either looks like a right answer.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from pmgs_core import PMGSStore
from pmgs_core.search import _codes

SCHEMES = ("fi", "fterm", "ipc")


def _read(database: Path, sql: str, *params: object) -> list[tuple[object, ...]]:
    connection = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def _oracle(database: Path, scheme: str, language: str) -> tuple[int, int] | None:
    ids = _read(
        database,
        "SELECT id FROM text WHERE language = ? AND revision_id IN "
        "(SELECT id FROM revision WHERE concept_id IN (SELECT id FROM concept WHERE scheme = ?))",
        language,
        scheme,
    )
    found = [int(str(row[0])) for row in ids]
    return (min(found), max(found)) if found else None


def test_the_build_records_every_range(database_path: Path) -> None:
    (value,) = _read(database_path, "SELECT value FROM metadata WHERE key = 'text_ranges'")[0]
    recorded = json.loads(str(value))
    languages = sorted(
        str(row[0]) for row in _read(database_path, "SELECT DISTINCT language FROM text")
    )
    assert sorted(recorded) == languages
    for language in languages:
        assert sorted(recorded[language]) == list(SCHEMES)
        for scheme in SCHEMES:
            expected = _oracle(database_path, scheme, language)
            assert tuple(recorded[language][scheme]) == (expected or (1, 0)), (scheme, language)


def _scans(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    calls: list[tuple[str, str]] = []
    scan = _codes._scan_range

    def counted(stream: _codes.Stream, scheme: str, language: str) -> tuple[int, int]:
        calls.append((scheme, language))
        return scan(stream, scheme, language)

    monkeypatch.setattr(_codes, "_scan_range", counted)
    monkeypatch.setattr(_codes, "_RANGES", {})
    monkeypatch.setattr(_codes, "_RECORDED", set())
    return calls


def test_a_store_scans_for_no_range_the_build_recorded(
    database_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _scans(monkeypatch)
    with PMGSStore.open(database_path) as store:
        recorded = store.search_pmgs("装置"), store.search_pmgs("装置", language="en")
    assert calls == []
    assert recorded[0]["results_by_type"]["classification"]["results"], "must find something"


def test_without_the_record_a_store_scans_and_answers_the_same(
    database_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with PMGSStore.open(database_path) as store:
        expected = store.search_pmgs("装置"), store.search_pmgs("装置", language="en")
    older = tmp_path / "older.sqlite"
    shutil.copyfile(database_path, older)
    connection = sqlite3.connect(older)
    with connection:
        connection.execute("DELETE FROM metadata WHERE key = 'text_ranges'")
    connection.close()
    calls = _scans(monkeypatch)
    with PMGSStore.open(older) as store:
        assert (store.search_pmgs("装置"), store.search_pmgs("装置", language="en")) == expected
    assert {language for _, language in calls} == {"ja", "en"}
