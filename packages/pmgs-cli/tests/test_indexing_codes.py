"""``pmgs lookup`` and ``pmgs search`` with IPC indexing codes (``A61K 103:00``; issue 27).

The installed console script is run against a database built from a generated package whose
IPC 4-7 files hold indexing codes; the code and its text are read back with plain SQL.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from pmgs_build import build_database
from pmgs_testkit import generate_package

Runner = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def indexed_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("indexing")
    package = generate_package(root / "package", scale=0.001, seed=5, ipc_indexing_share=0.05)
    db = root / "indexing.sqlite"
    build_database(package.path, db)
    return db


def test_lookup_and_search_indexing_codes(pmgs: Runner, indexed_db: Path) -> None:
    with sqlite3.connect(indexed_db.resolve().as_uri() + "?mode=ro", uri=True) as conn:
        code, body = conn.execute(
            "SELECT c.code, t.body FROM concept c JOIN revision r ON r.concept_id = c.id "
            "JOIN text t ON t.revision_id = r.id WHERE c.edition = '7' AND c.code LIKE '%:%' "
            "ORDER BY c.id LIMIT 1"
        ).fetchone()
    full_width = "".join(chr(ord(char) + 0xFEE0) for char in code)
    for spelling, status in ((code, "exact"), (f"{code[:4]} {code[4:]}", "normalized_exact"),
                             (full_width, "normalized_exact")):  # fmt: skip
        result = pmgs("lookup", "ipc", spelling, "--db", indexed_db, "--json")
        assert result.returncode == 0, result.stderr
        record = json.loads(result.stdout)
        assert (record["code"], record["edition"], record["match_status"]) == (code, "7", status)
    result = pmgs("search", body, "--scheme", "ipc", "--db", indexed_db, "--json")
    assert result.returncode == 0, result.stderr
    page = json.loads(result.stdout)["results_by_type"]["classification"]
    assert code in {hit["code"] for hit in page["results"]}
