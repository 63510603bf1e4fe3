"""Context beside search hits and relation targets (issue 29), against parent relations and
texts read here with SQL: an F-term term shows its theme and viewpoint, a subgroup its main
group and nearest parents (at most three), other kinds nothing."""

from __future__ import annotations

import sqlite3
from typing import Any

import jsonschema

from pmgs_core import PMGSStore, load_schema


def _concept(ro_conn: sqlite3.Connection, scheme: str, edition: str | None, code: str) -> int:
    (concept,) = ro_conn.execute(
        "SELECT id FROM concept WHERE scheme = ? AND edition = ? AND code = ?",
        (scheme, edition or "", code),
    ).fetchone()
    return int(concept)


def _ancestors(ro_conn: sqlite3.Connection, concept: int) -> list[tuple[str, str, str | None]]:
    """(code, kind, first ja line of the latest revision), top first."""
    chain = []
    while True:
        row = ro_conn.execute(
            "SELECT to_concept_id FROM relation WHERE from_concept_id = ? AND kind = 'parent' "
            "ORDER BY sequence, id LIMIT 1",
            (concept,),
        ).fetchone()
        if row is None:
            break
        concept = int(row[0])
        code, kind = ro_conn.execute(
            "SELECT code, kind FROM concept WHERE id = ?", (concept,)
        ).fetchone()
        title = ro_conn.execute(
            "SELECT x.body FROM revision r JOIN text x ON x.revision_id = r.id "
            "WHERE r.concept_id = ? AND x.language = 'ja' "
            "ORDER BY r.valid_to IS NULL DESC, r.valid_to DESC, x.line, x.id LIMIT 1",
            (concept,),
        ).fetchone()
        chain.append((code, kind, title[0] if title else None))
    return list(reversed(chain))


def _expected(ro_conn: sqlite3.Connection, hit: Any) -> list[tuple[str, str, str | None]]:
    chain = _ancestors(ro_conn, _concept(ro_conn, hit["scheme"], hit["edition"], hit["code"]))
    if hit["scheme"] == "fterm" and hit["kind"] in ("term", "viewpoint"):
        return [item for item in chain if item[1] in ("theme", "viewpoint")]
    if hit["kind"] != "subgroup":
        return []
    groups = [index for index, item in enumerate(chain) if item[1] == "main_group"]
    path = chain[groups[-1] :]
    return path if len(path) <= 3 else [path[0], *path[-2:]]


def test_hits_carry_their_bounded_context(
    store: PMGSStore, ro_conn: sqlite3.Connection, examples: dict[str, str]
) -> None:
    word = examples["two_char_word"]
    page = store.search(word, limit=60)
    jsonschema.validate(page, load_schema("classification_search_page"))
    kinds = set()
    for hit in page["results"]:
        got = [(c["code"], c["kind"], c["title"]) for c in hit.get("context", [])]
        assert got == _expected(ro_conn, hit), hit["code"]
        if got:
            kinds.add((hit["scheme"], hit["kind"]))
    assert ("fterm", "term") in kinds
    assert {("fi", "subgroup"), ("ipc", "subgroup")} & kinds


def test_an_fterm_term_shows_theme_and_viewpoint(
    store: PMGSStore, examples: dict[str, str]
) -> None:
    term = examples["fterm_term"]  # 3B542AA01
    page = store.search(store.lookup("fterm", term)["texts"][0]["body"], schemes=["fterm"])
    hit = next(hit for hit in page["results"] if hit["code"] == term)
    assert [(c["code"], c["kind"]) for c in hit["context"]] == [
        ("3B542", "theme"),
        ("3B542AA", "viewpoint"),
    ]


def test_relation_targets_are_titled(store: PMGSStore, ro_conn: sqlite3.Connection) -> None:
    record = store.lookup("ipc", "G06F3/048")
    targets = [relation["target"] for relation in record["relations"]]
    assert targets
    titles = store.code_titles(targets)
    for target, title in zip(targets, titles, strict=True):
        concept = _concept(ro_conn, target["scheme"], target["edition"], target["code"])
        row = ro_conn.execute(
            "SELECT x.body FROM revision r JOIN text x ON x.revision_id = r.id "
            "WHERE r.concept_id = ? AND x.language = 'ja' "
            "ORDER BY r.valid_to IS NULL DESC, r.valid_to DESC, x.line, x.id LIMIT 1",
            (concept,),
        ).fetchone()
        assert title == (row[0] if row else None)
    missing = {"scheme": "fi", "edition": None, "code": "Z99Z9/99", "kind": "", "record_status": ""}
    assert store.code_titles([missing]) == [None]
