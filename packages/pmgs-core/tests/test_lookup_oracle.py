"""lookup() against an oracle built with plain SQL, one statement per part of the record.

The store reads a record in few statements inside one read transaction (concept and revisions
joined, texts and properties in one union, the document count riding on the page) and checks
its size on a bound; the oracle here asks each part the plainest way, so any field lost,
reordered or miscounted on the way shows up as a difference of whole records. The sample is
drawn by SQL from the built database: codes of every scheme, IPC codes defined in several
editions or not canonical in the first one, codes with many relations, paged past the end.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from pmgs_core import PMGSStore
from pmgs_core.records import CONTENT_ROLE, EVIDENCE_NOTICE
from pmgs_core.schema import IPC_EDITIONS
from pmgs_core.viewer_paths import code_viewer_path

SCOPE_LIMIT, SCOPE_CHARS, DOCUMENT_LIMIT = 5, 400, 50


class Oracle:
    """The expected record of one lookup, asked of the database part by part."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.release_id, self.date, self.attribution = conn.execute(
            "SELECT release_id, reference_date, attribution FROM release"
        ).fetchone()

    def source(self, file_id: int, locator: str) -> dict[str, Any]:
        path, sha = self.conn.execute(
            "SELECT path, sha256 FROM source_file WHERE id = ?", (file_id,)
        ).fetchone()
        return {
            "file": path,
            "file_sha256": sha,
            "locator": locator,
            "attribution": self.attribution,
        }

    def concept(self, scheme: str, code: str, edition: str | None) -> tuple[Any, ...] | None:
        rows = self.conn.execute(
            "SELECT id, edition, kind, status, source_file_id, locator FROM concept "
            "WHERE scheme = ? AND code = ?",
            (scheme, code),
        ).fetchall()
        if edition is not None or scheme != "ipc":
            rows = [row for row in rows if row[1] == (edition or "")]
        rows = [row for row in rows if scheme != "ipc" or row[1] in IPC_EDITIONS]
        rows.sort(
            key=lambda row: (row[3] != "canonical", IPC_EDITIONS.index(row[1]) if row[1] else 0)
        )
        return rows[0] if rows else None

    def valid(self, valid_from: str | None, valid_to: str | None) -> bool:
        return (valid_from is None or valid_from <= self.date) and (
            valid_to is None or self.date <= valid_to
        )

    def record(
        self, scheme: str, code: str, edition: str | None, language: str, limit: int, offset: int
    ) -> dict[str, Any]:
        concept = self.concept(scheme, code, edition)
        assert concept is not None
        concept_id, found_edition, kind, status, file_id, locator = concept
        revisions = self.conn.execute(
            "SELECT id, version, valid_from, valid_to, level, sequence, source_file_id, locator "
            "FROM revision WHERE concept_id = ?",
            (concept_id,),
        ).fetchall()
        revisions.sort(
            key=lambda row: (
                row[2] is not None,
                row[2] or "",
                row[1] is not None,
                row[1] or "",
                row[0],
            )
        )
        active = [row for row in revisions if self.valid(row[2], row[3])]
        assert len(active) == 1, (scheme, code)
        revision = active[0]
        sources = [self.source(file_id, locator)]
        revision_source = self.source(revision[6], revision[7])
        if revision_source not in sources:
            sources.append(revision_source)
        texts = self.conn.execute(
            "SELECT language, text_type, line, body, source_file_id, locator FROM text "
            "WHERE revision_id = ? AND language = ? ORDER BY line, id",
            (revision[0], language),
        ).fetchall()
        properties = self.conn.execute(
            "SELECT name, value, source_file_id, locator FROM property "
            "WHERE revision_id = ? ORDER BY name, id",
            (revision[0],),
        ).fetchall()
        relations = self.relations(concept_id)
        documents = self.conn.execute(
            "SELECT d.document_key, d.kind, d.language, d.title, l.role, d.id "
            "FROM document_link AS l JOIN document AS d ON d.id = l.document_id "
            "WHERE l.concept_id = ? GROUP BY d.id, l.role",
            (concept_id,),
        ).fetchall()
        documents.sort(key=lambda row: (row[4] != "subject", row[1], row[5]))
        page = relations[offset : offset + limit]
        shown_edition = found_edition or None
        return {
            "record_type": "classification",
            "query": {
                "scheme": scheme,
                "code": code,
                "edition": edition,
                "version": None,
                "language": language,
                "release": "current",
            },
            "match_status": "exact",
            "scheme": scheme,
            "edition": shown_edition,
            "code": code,
            "kind": kind,
            "record_status": status,
            "release": {"release_id": self.release_id, "reference_date": self.date},
            "revision": {
                "version": revision[1],
                "valid_from": revision[2],
                "valid_to": revision[3],
                "valid_at_release": True,
                "level": revision[4],
                "sequence": revision[5],
                "source": revision_source,
            },
            "available_versions": [
                {
                    "version": row[1],
                    "valid_from": row[2],
                    "valid_to": row[3],
                    "valid_at_release": self.valid(row[2], row[3]),
                }
                for row in revisions
                if row[1]
            ],
            "texts": [
                {
                    "language": row[0],
                    "text_type": row[1],
                    "line": row[2],
                    "body": row[3],
                    "source": self.source(row[4], row[5]),
                }
                for row in texts
            ],
            "properties": [
                {"name": row[0], "value": row[1], "source": self.source(row[2], row[3])}
                for row in properties
            ],
            "relations": page,
            "relation_count": len(relations),
            "relation_limit": limit,
            "relation_offset": offset,
            "relations_truncated": offset + len(page) < len(relations),
            "next_relation_offset": offset + len(page)
            if offset + len(page) < len(relations)
            else None,
            "documents": [
                {
                    "document_id": row[0],
                    "kind": row[1],
                    "language": row[2],
                    "title": row[3],
                    "role": row[4],
                }
                for row in documents[:DOCUMENT_LIMIT]
            ],
            "document_count": len(documents),
            "documents_truncated": len(documents) > DOCUMENT_LIMIT,
            "scope_notes": self.scope_notes(concept_id, code, language),
            "sources": sources,
            "viewer_path": code_viewer_path(scheme, code, shown_edition),
            "attribution": self.attribution,
            "content_role": CONTENT_ROLE,
            "notice": EVIDENCE_NOTICE,
        }

    def relations(self, concept_id: int) -> list[dict[str, Any]]:
        rows = []
        for direction, mine, other, extra in (
            (0, "from_concept_id", "to_concept_id", ""),
            (1, "to_concept_id", "from_concept_id", " AND r.kind <> 'parent'"),
        ):
            rows += [
                (direction, *row)
                for row in self.conn.execute(
                    "SELECT r.kind, c.scheme, c.edition, c.code, c.kind, c.status, "
                    "(SELECT version FROM revision WHERE id = r.from_revision_id), "
                    "(SELECT version FROM revision WHERE id = r.to_revision_id), "
                    f"r.sequence, r.source_file_id, r.locator, r.id FROM relation AS r "
                    f"JOIN concept AS c ON c.id = r.{other} WHERE r.{mine} = ?{extra}",
                    (concept_id,),
                )
            ]
        rows.sort(key=lambda row: (row[0], row[1], row[9], row[12]))
        return [
            {
                "kind": row[1],
                "direction": "outgoing" if row[0] == 0 else "incoming",
                "target": {
                    "scheme": row[2],
                    "edition": row[3] or None,
                    "code": row[4],
                    "kind": row[5],
                    "record_status": row[6],
                },
                "from_version": row[7] or None,
                "to_version": row[8] or None,
                "sequence": row[9],
                "source": self.source(row[10], row[11]),
            }
            for row in rows
        ]

    def scope_notes(self, concept_id: int, code: str, language: str) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT DISTINCT t.id, d.document_key, d.kind, d.id, t.sequence_number, t.body, "
            "t.source_file_id, t.locator FROM document_link AS l "
            "JOIN document AS d ON d.id = l.document_id "
            "JOIN document_text AS t ON t.document_id = d.id "
            "WHERE l.concept_id = ? AND t.heading = ? "
            "AND d.kind IN ('fi_handbook', 'fterm_explanation') "
            "AND (d.language = ? OR d.language IS NULL)",
            (concept_id, code, language),
        ).fetchall()
        rows.sort(key=lambda row: (row[2], row[3], row[4]))
        return [
            {
                "document_id": row[1],
                "kind": row[2],
                "section": row[4],
                "body": row[5][:SCOPE_CHARS] + ("…" if len(row[5]) > SCOPE_CHARS else ""),
                "truncated": len(row[5]) > SCOPE_CHARS,
                "source": self.source(row[6], row[7]),
            }
            for row in rows[:SCOPE_LIMIT]
        ]


def _sample(conn: sqlite3.Connection) -> list[tuple[str, str, str | None]]:
    """(scheme, code, edition to ask or None) of canonical codes with one valid revision."""
    picked = conn.execute(
        "SELECT scheme, code, edition FROM (SELECT scheme, code, edition, row_number() OVER "
        "  (PARTITION BY scheme ORDER BY id) AS n FROM concept AS c "
        "  WHERE status = 'canonical' AND ("
        "    id % 97 = 0"
        "    OR (scheme = 'ipc' AND (SELECT count(*) FROM concept AS o WHERE o.scheme = 'ipc' "
        "        AND o.code = c.code) > 1 AND id % 5 = 0)"
        "    OR (SELECT count(*) FROM relation WHERE from_concept_id = c.id) "
        "     + (SELECT count(*) FROM relation WHERE to_concept_id = c.id) > 6"
        "    OR id IN (SELECT l.concept_id FROM document_link AS l JOIN document_text AS t "
        "        ON t.document_id = l.document_id JOIN concept AS k ON k.id = l.concept_id "
        "        WHERE t.heading = k.code))"
        ") WHERE n <= 150"
    ).fetchall()
    # IPC codes of the other editions (asked with and without their edition) and codes the
    # first edition holds only as a reference: found by the lookup through every edition.
    picked += conn.execute(
        "SELECT scheme, code, edition FROM concept WHERE scheme = 'ipc' "
        "AND (status <> 'canonical' OR (edition <> ? AND id % 3 = 0)) "
        "ORDER BY status = 'canonical', id LIMIT 80",
        (IPC_EDITIONS[0],),
    ).fetchall()
    return [(scheme, code, None) for scheme, code, _ in picked] + [
        (scheme, code, edition or None) for scheme, code, edition in picked if scheme == "ipc"
    ]


@pytest.fixture(scope="module")
def oracle(ro_conn: sqlite3.Connection) -> Oracle:
    return Oracle(ro_conn)


def test_sample_covers_the_hard_cases(ro_conn: sqlite3.Connection) -> None:
    sample = _sample(ro_conn)
    assert {scheme for scheme, _, _ in sample} == {"fi", "ipc", "fterm"}
    assert any(edition not in {None, IPC_EDITIONS[0]} for _, _, edition in sample)
    not_canonical_first = {
        row[0]
        for row in ro_conn.execute(
            "SELECT code FROM concept WHERE scheme = 'ipc' AND edition = ? "
            "AND status <> 'canonical'",
            (IPC_EDITIONS[0],),
        )
    }
    assert any(code in not_canonical_first and edition is None for _, code, edition in sample)
    assert len(sample) > 100


@pytest.mark.parametrize(
    ("language", "limit", "offset"), [("ja", 50, 0), ("en", 3, 2), ("ja", 2, 40)]
)
def test_records_equal_the_oracle(
    store: PMGSStore,
    oracle: Oracle,
    ro_conn: sqlite3.Connection,
    language: str,
    limit: int,
    offset: int,
) -> None:
    compared = with_relations = past_end = with_notes = 0
    for scheme, code, edition in _sample(ro_conn):
        concept = oracle.concept(scheme, code, edition)
        assert concept is not None
        revisions = ro_conn.execute(
            "SELECT valid_from, valid_to FROM revision WHERE concept_id = ?", (concept[0],)
        ).fetchall()
        if sum(oracle.valid(*row) for row in revisions) != 1:
            continue  # not_valid_at_release and the refusal are test_store_lookup's cases
        record = store.lookup(
            scheme,
            code,
            edition=edition,
            language=language,
            relation_limit=limit,
            relation_offset=offset,
        )
        expected = oracle.record(scheme, code, edition, language, limit, offset)
        assert record == expected, (scheme, code, edition)
        compared += 1
        with_relations += bool(record["relations"])
        past_end += bool(record["relation_count"] and not record["relations"])
        with_notes += bool(record["scope_notes"])
    assert compared > 100
    assert with_relations > (10 if offset < 10 else 0)
    assert past_end > (10 if offset >= 10 else -1)
    if language == "ja":
        assert with_notes > 5
