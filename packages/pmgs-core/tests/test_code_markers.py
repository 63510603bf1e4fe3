"""``code_markers``: the parent and J-PlatPat's F / CC / HB facts of listed codes, against
relations and document links read here with SQL (issue 40)."""

from __future__ import annotations

import sqlite3

import pytest

from pmgs_core import CodeRef, PMGSQueryError, PMGSStore


def _ref(scheme: str, edition: str, code: str) -> CodeRef:
    return {
        "scheme": scheme,
        "edition": edition or None,
        "code": code,
        "kind": "",
        "record_status": "canonical",
    }


def _expected(ro_conn: sqlite3.Connection, concept: int, code: str) -> dict[str, object]:
    parent = ro_conn.execute(
        "SELECT c.code FROM relation r JOIN concept c ON c.id = r.to_concept_id "
        "WHERE r.kind = 'parent' AND r.from_concept_id = ? ORDER BY r.sequence, r.id LIMIT 1",
        (concept,),
    ).fetchone()
    theme = ro_conn.execute(
        "SELECT count(*) FROM relation WHERE kind = 'theme' AND from_concept_id = ?", (concept,)
    ).fetchone()[0]
    concordance = ro_conn.execute(
        "SELECT count(*) FROM relation WHERE kind = 'concordance' "
        "AND (from_concept_id = ? OR to_concept_id = ?)",
        (concept, concept),
    ).fetchone()[0]
    handbook = ro_conn.execute(
        "SELECT count(*) FROM document_link l JOIN document d ON d.id = l.document_id "
        "WHERE d.kind = 'fi_handbook' AND l.role = 'subject' AND l.concept_id = ?",
        (concept,),
    ).fetchone()[0]
    return {
        "code": code,
        "found": True,
        "parent": parent[0] if parent else None,
        "fterm_theme": theme > 0,
        "concordance": concordance > 0,
        "handbook": handbook > 0,
    }


@pytest.mark.parametrize("scheme", ["fi", "ipc", "fterm"])
def test_markers_match_sql(store: PMGSStore, ro_conn: sqlite3.Connection, scheme: str) -> None:
    rows = ro_conn.execute(
        "SELECT id, edition, code FROM concept WHERE scheme = ? ORDER BY id LIMIT 150", (scheme,)
    ).fetchall()
    refs = [_ref(scheme, edition, code) for _id, edition, code in rows]
    answer = store.code_markers(refs)
    assert answer == [_expected(ro_conn, concept, code) for concept, _e, code in rows]
    if scheme == "fi":
        # The sample has codes of each kind, so every flag is seen both true and false.
        for flag in ("fterm_theme", "concordance", "handbook"):
            assert {m[flag] for m in answer} == {True, False}  # type: ignore[literal-required]


def test_unknown_codes_and_limits(store: PMGSStore) -> None:
    assert store.code_markers([_ref("fi", "", "Z99Z99/99")]) == [
        {
            "code": "Z99Z99/99",
            "found": False,
            "parent": None,
            "fterm_theme": False,
            "concordance": False,
            "handbook": False,
        }
    ]
    assert store.code_markers([]) == []
    with pytest.raises(PMGSQueryError) as refused:
        store.code_markers([_ref("fi", "", "A")] * 201)
    assert refused.value.code == "INVALID_ARGUMENT"
