"""Scope notes in a lookup: the handbook lines and explanations about the code, from SQL."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pmgs_core import PMGSStore

ORACLE = """
    SELECT d.document_key, t.sequence_number, t.body
    FROM document_text t JOIN document d ON d.id = t.document_id
    WHERE d.kind IN ('fi_handbook', 'fterm_explanation') AND t.heading = ?
      AND coalesce(d.language, ?) = ?
    ORDER BY d.kind, d.id, t.sequence_number
"""


def _codes(ro: sqlite3.Connection, kind: str, scheme: str) -> list[str]:
    rows = ro.execute(
        "SELECT DISTINCT t.heading FROM document_text t JOIN document d ON d.id = t.document_id "
        "JOIN concept c ON c.code = t.heading AND c.scheme = ? WHERE d.kind = ? "
        "ORDER BY t.heading LIMIT 8",
        (scheme, kind),
    )
    return [str(r[0]) for r in rows]


def test_scope_notes_are_the_segments_about_the_code(
    store: PMGSStore, ro_conn: sqlite3.Connection
) -> None:
    cases = [("fi", c) for c in _codes(ro_conn, "fi_handbook", "fi")]
    cases += [("fterm", c) for c in _codes(ro_conn, "fterm_explanation", "fterm")]
    assert len(cases) >= 8
    for scheme, code in cases:
        for language in ("ja", "en"):
            record = store.lookup(scheme, code, language=language)
            expected = ro_conn.execute(ORACLE, (code, language, language)).fetchall()[:5]
            got = [(n["document_id"], n["section"], n["body"]) for n in record["scope_notes"]]
            assert got == [(k, s, b[:400] + ("…" if len(b) > 400 else "")) for k, s, b in expected]
            for note in record["scope_notes"]:
                assert note["source"]["locator"]


def test_missing_code_has_no_notes(store: PMGSStore) -> None:
    assert store.lookup("fi", "A99Z99/99")["scope_notes"] == []


def test_long_notes_are_cut_and_marked(writable_copy: Path, ro_conn: sqlite3.Connection) -> None:
    code = _codes(ro_conn, "fi_handbook", "fi")[0]
    with sqlite3.connect(writable_copy) as conn:
        conn.execute(
            "UPDATE document_text SET body = ? WHERE heading = ?", ("長" * 1000 + "末尾", code)
        )
    with PMGSStore.open(writable_copy) as store:
        [note] = [n for n in store.lookup("fi", code)["scope_notes"] if n["kind"] == "fi_handbook"][
            :1
        ]
    assert note["truncated"] is True
    assert note["body"] == "長" * 400 + "…"
