"""``lookup``: the full record of one code (texts, properties, relations, documents).

Missing codes and versions are records with a ``match_status``, not errors; relations are
paged inside the record, documents are listed up to :data:`LOOKUP_DOCUMENT_LIMIT` (ADR 0004).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from pmgs_core.records import (
    CONTENT_ROLE,
    EVIDENCE_NOTICE,
    ClassificationRecord,
    LookupQuery,
    MatchStatus,
    PropertyItem,
    RelationItem,
    ScopeNote,
    SourceRef,
    TextItem,
    code_ref,
)
from pmgs_core.store._arguments import (
    LOOKUP_DOCUMENT_LIMIT,
    check_limit,
    check_offset,
    page_fields,
    valid_at,
)
from pmgs_core.store._concepts import ConceptReader
from pmgs_core.viewer_paths import code_viewer_path

__all__ = ["SCOPE_NOTE_CHARS", "SCOPE_NOTE_LIMIT", "LookupMixin"]

SCOPE_NOTE_LIMIT: Final = 5
SCOPE_NOTE_CHARS: Final = 400


class LookupMixin(ConceptReader):
    """The lookup capability of :class:`pmgs_core.PMGSStore`."""

    def lookup(
        self,
        scheme: str,
        code: str,
        release: str = "current",
        edition: str | None = None,
        language: str = "ja",
        *,
        version: str | None = None,
        relation_limit: int = 50,
        relation_offset: int = 0,
    ) -> ClassificationRecord:
        """The full record of one code: texts, properties, relations, documents, sources.

        Any notation :func:`pmgs_core.parse_code` reads is accepted; ``code`` in the record is
        the canonical code that was matched and ``match_status`` says how. ``version`` (IPC
        only) selects one revision; without it the revision valid at the release's reference
        date is used. Missing codes and versions are records, not errors.
        """
        checked_scheme, checked_edition, checked_language = self._check_address(
            scheme, release, edition, language
        )
        limit = check_limit(relation_limit, "relation_limit")
        offset = check_offset(relation_offset, "relation_offset")
        canonical, code_version = self._parse(checked_scheme, code)
        wanted_version = self._check_version(checked_scheme, version, code_version)
        query: LookupQuery = {
            "scheme": checked_scheme,
            "code": code,
            "edition": checked_edition,
            "version": wanted_version,
            "language": checked_language,
            "release": release,
        }
        return self._locked(
            lambda: self._lookup(
                query, canonical, wanted_version, limit, offset, exact=code == canonical
            )
        )

    def _empty_record(
        self,
        query: LookupQuery,
        canonical: str,
        status: MatchStatus,
        *,
        limit: int,
        offset: int,
        concept: Sequence[Any] | None = None,
    ) -> ClassificationRecord:
        edition = query["edition"]
        sources: list[SourceRef] = []
        if concept is not None:
            edition = concept[2] or None
            sources = [self._source(concept[6], concept[7])]
        return {
            "record_type": "classification",
            "query": query,
            "match_status": status,
            "scheme": query["scheme"],
            "edition": edition,
            "code": canonical,
            "kind": None if concept is None else str(concept[4]),
            "record_status": None if concept is None else str(concept[5]),
            "release": self._release_ref(),
            "revision": None,
            "available_versions": [],
            "texts": [],
            "properties": [],
            "relations": [],
            "relation_count": 0,
            "relation_limit": limit,
            "relation_offset": offset,
            "relations_truncated": False,
            "next_relation_offset": None,
            "documents": [],
            "document_count": 0,
            "documents_truncated": False,
            "scope_notes": [],
            "sources": sources,
            "viewer_path": None
            if concept is None
            else code_viewer_path(query["scheme"], canonical, edition),
            "attribution": self._attribution,
            "content_role": CONTENT_ROLE,
            "notice": EVIDENCE_NOTICE,
        }

    def _lookup(
        self,
        query: LookupQuery,
        canonical: str,
        version: str | None,
        limit: int,
        offset: int,
        *,
        exact: bool,
    ) -> ClassificationRecord:
        found = self._find_concept_revisions(query["scheme"], canonical, query["edition"])
        if found is None:
            return self._empty_record(query, canonical, "not_found", limit=limit, offset=offset)
        concept, revisions = found
        concept_id = int(concept[0])
        if version is not None:
            chosen = next((row for row in revisions if row[1] == version), None)
            missing: MatchStatus = "version_not_found"
        else:
            chosen = self._active(revisions, f"{query['scheme']} {canonical}")
            missing = "not_valid_at_release"
        if chosen is None:
            record = self._empty_record(
                query, canonical, missing, limit=limit, offset=offset, concept=concept
            )
            record["available_versions"] = self._version_infos(revisions)
            return record
        record = self._empty_record(
            query,
            canonical,
            "exact" if exact else "normalized_exact",
            limit=limit,
            offset=offset,
            concept=concept,
        )
        revision_id = int(chosen[0])
        record["available_versions"] = self._version_infos(revisions)
        revision_source = self._source(chosen[6], chosen[7])
        record["revision"] = {
            "version": str(chosen[1]),
            "valid_from": chosen[2],
            "valid_to": chosen[3],
            "valid_at_release": valid_at(chosen[2], chosen[3], self._reference_date),
            "level": chosen[4],
            "sequence": chosen[5],
            "source": revision_source,
        }
        if revision_source not in record["sources"]:
            record["sources"].append(revision_source)
        self._fill_texts(record, revision_id, query["language"])
        self._fill_relations(record, concept_id, limit, offset)
        self._fill_documents(record, concept_id)
        self._fill_scope_notes(record, concept_id, query["language"])
        return record

    _TEXTS_SQL: Final = """
        SELECT 0, line, id, language, text_type, body, source_file_id, locator
        FROM text WHERE revision_id = :revision AND language = :language
        UNION ALL
        SELECT 1, name, id, value, NULL, NULL, source_file_id, locator
        FROM property WHERE revision_id = :revision
        ORDER BY 1, 2, 3
    """

    def _fill_texts(self, record: ClassificationRecord, revision_id: int, language: str) -> None:
        """The revision's texts (by line) and properties (by name), in one statement."""
        texts: list[TextItem] = []
        properties: list[PropertyItem] = []
        for row in self._rows(self._TEXTS_SQL, {"revision": revision_id, "language": language}):
            source = self._source(row[6], row[7])
            if row[0] == 0:
                texts.append(
                    {
                        "language": row[3],
                        "text_type": row[4],
                        "line": row[1],
                        "body": row[5],
                        "source": source,
                    }
                )
            else:
                properties.append({"name": row[1], "value": row[3], "source": source})
        record["texts"] = texts
        record["properties"] = properties

    _RELATIONS_SQL: Final = """
        SELECT * FROM (
            SELECT 0 AS direction, r.kind, c.scheme, c.edition, c.code, c.kind, c.status,
                   fr.version, tr.version, r.sequence, r.source_file_id, r.locator, r.id
            FROM relation AS r
            JOIN concept AS c ON c.id = r.to_concept_id
            LEFT JOIN revision AS fr ON fr.id = r.from_revision_id
            LEFT JOIN revision AS tr ON tr.id = r.to_revision_id
            WHERE r.from_concept_id = :concept
            UNION ALL
            SELECT 1, r.kind, c.scheme, c.edition, c.code, c.kind, c.status,
                   fr.version, tr.version, r.sequence, r.source_file_id, r.locator, r.id
            FROM relation AS r
            JOIN concept AS c ON c.id = r.from_concept_id
            LEFT JOIN revision AS fr ON fr.id = r.from_revision_id
            LEFT JOIN revision AS tr ON tr.id = r.to_revision_id
            WHERE r.to_concept_id = :concept AND r.kind <> 'parent'
        )
        ORDER BY 1, 2, 10, 13
        LIMIT :limit OFFSET :offset
    """

    def _fill_relations(
        self, record: ClassificationRecord, concept_id: int, limit: int, offset: int
    ) -> None:
        """Outgoing relations (parent, theme, concordance, amended-to) and incoming ones
        except children (those are :meth:`children`), in a stable order, paged."""
        count_row = self._one(
            "SELECT (SELECT count(*) FROM relation WHERE from_concept_id = ?) + "
            "(SELECT count(*) FROM relation WHERE to_concept_id = ? AND kind <> 'parent')",
            (concept_id, concept_id),
        )
        count = int(count_row[0]) if count_row else 0
        rows = self._rows(
            self._RELATIONS_SQL, {"concept": concept_id, "limit": limit, "offset": offset}
        )
        items: list[RelationItem] = [
            {
                "kind": str(row[1]),
                "direction": "outgoing" if row[0] == 0 else "incoming",
                "target": code_ref(row[2:7]),
                "from_version": row[7] if row[7] else None,
                "to_version": row[8] if row[8] else None,
                "sequence": int(row[9]),
                "source": self._source(row[10], row[11]),
            }
            for row in rows
        ]
        truncated, next_offset = page_fields(count, limit, offset, len(items))
        record["relations"] = items
        record["relation_count"] = count
        record["relations_truncated"] = truncated
        record["next_relation_offset"] = next_offset

    def _fill_documents(self, record: ClassificationRecord, concept_id: int) -> None:
        refs, count = self._document_refs(concept_id, LOOKUP_DOCUMENT_LIMIT)
        record["documents"] = refs
        record["document_count"] = count
        record["documents_truncated"] = count > len(refs)

    _SCOPE_NOTES_SQL: Final = """
        SELECT d.document_key, d.kind, t.sequence_number, t.body, t.source_file_id, t.locator
        FROM document_link AS l
        JOIN document AS d ON d.id = l.document_id
        JOIN document_text AS t ON t.document_id = d.id
        WHERE l.concept_id = ? AND d.kind IN ('fi_handbook', 'fterm_explanation')
          AND t.heading = ? AND (d.language = ? OR d.language IS NULL)
        GROUP BY t.id
        ORDER BY d.kind, d.id, t.sequence_number
        LIMIT ?
    """

    def _fill_scope_notes(
        self, record: ClassificationRecord, concept_id: int, language: str
    ) -> None:
        """The handbook lines (FI) and explanations (F-term) written about this very code:
        the text that decides what belongs to it ("…を対象とする", "…ここに分類しない").
        Bounded to :data:`SCOPE_NOTE_LIMIT` notes of :data:`SCOPE_NOTE_CHARS` characters;
        ``truncated`` sends the reader to the document's section for the rest."""
        notes: list[ScopeNote] = []
        for key, kind, section, body, file_id, locator in self._rows(
            self._SCOPE_NOTES_SQL, (concept_id, record["code"], language, SCOPE_NOTE_LIMIT)
        ):
            text = str(body)
            cut = len(text) > SCOPE_NOTE_CHARS
            notes.append(
                {
                    "document_id": str(key),
                    "kind": str(kind),
                    "section": int(section),
                    "body": text[:SCOPE_NOTE_CHARS] + ("…" if cut else ""),
                    "truncated": cut,
                    "source": self._source(file_id, locator),
                }
            )
        record["scope_notes"] = notes
