"""Documents: the documents linked to a code, and one document's segments, paged.

A document is named by its public ``document_key``; a page, section or locator selects
segments, and the related classifications are paged independently of the segments (ADR 0004).
"""

from __future__ import annotations

from pmgs_core.errors import PMGSQueryError
from pmgs_core.records import (
    CONTENT_ROLE,
    EVIDENCE_NOTICE,
    DocumentPage,
    DocumentSegment,
    RelatedClassification,
    RelatedDocumentsRecord,
    code_ref,
)
from pmgs_core.store._arguments import (
    MAX_DOCUMENT_ID_CHARS,
    MAX_LOCATOR_CHARS,
    SQLITE_MAX_INT,
    check_limit,
    check_offset,
    is_int,
    is_text,
    page_fields,
)
from pmgs_core.store._concepts import ConceptReader
from pmgs_core.viewer_paths import document_viewer_path

__all__ = ["DocumentsMixin"]


class DocumentsMixin(ConceptReader):
    """The document capability of :class:`pmgs_core.PMGSStore`."""

    def related_documents(
        self, scheme: str, code: str, release: str = "current", edition: str | None = None
    ) -> RelatedDocumentsRecord:
        """Every document linked to a code (handbook, explanation, revision, definition)."""
        checked_scheme, checked_edition, _language = self._check_address(scheme, release, edition)
        canonical, _version = self._parse(checked_scheme, code)

        def run() -> RelatedDocumentsRecord:
            record: RelatedDocumentsRecord = {
                "record_type": "related_documents",
                "match_status": "not_found",
                "scheme": checked_scheme,
                "edition": checked_edition,
                "code": canonical,
                "release": self._release_ref(),
                "documents": [],
                "document_count": 0,
            }
            concept = self._find_concept(checked_scheme, canonical, checked_edition)
            if concept is not None:
                record["match_status"] = "exact" if code == canonical else "normalized_exact"
                record["edition"] = concept[2] or None
                record["documents"], record["document_count"] = self._document_refs(
                    int(concept[0]), None
                )
            return record

        return self._locked(run)

    def get_document(
        self,
        document_id: str,
        page: int | None = None,
        section: int | None = None,
        *,
        locator: str | None = None,
        segment_limit: int = 200,
        segment_offset: int = 0,
        related_classification_limit: int = 200,
        related_classification_offset: int = 0,
    ) -> DocumentPage:
        """One document's segments (optionally one page, section or locator), paged.

        ``page`` is the 1-based PDF page, ``section`` the 1-based segment number, ``locator``
        an exact heading or source locator (``page:3``); they are mutually exclusive. Segments
        and related classifications are paged independently.
        """
        if not isinstance(document_id, str) or not 0 < len(document_id) <= MAX_DOCUMENT_ID_CHARS:
            raise PMGSQueryError("INVALID_ARGUMENT", "document_id must be a non-empty string")
        given = [
            name
            for name, value in (("page", page), ("section", section), ("locator", locator))
            if value is not None
        ]
        if len(given) > 1:
            raise PMGSQueryError(
                "INVALID_DOCUMENT_SELECTOR",
                "page, section and locator are mutually exclusive; give at most one",
                {"given": given},
            )
        for name, value in (("page", page), ("section", section)):
            if value is not None and (not is_int(value) or not 1 <= value <= SQLITE_MAX_INT):
                hint = (
                    " (pass a heading or locator string as locator=)" if name == "section" else ""
                )
                raise PMGSQueryError(
                    "INVALID_DOCUMENT_SELECTOR", f"{name} must be a positive integer{hint}"
                )
        if locator is not None and (
            not isinstance(locator, str) or not 0 < len(locator) <= MAX_LOCATOR_CHARS
        ):
            raise PMGSQueryError("INVALID_DOCUMENT_SELECTOR", "locator must be a non-empty string")
        seg_limit = check_limit(segment_limit, "segment_limit")
        seg_offset = check_offset(segment_offset, "segment_offset")
        rel_limit = check_limit(related_classification_limit, "related_classification_limit")
        rel_offset = check_offset(related_classification_offset, "related_classification_offset")
        return self._locked(
            lambda: self._get_document(
                document_id,
                page=page,
                section=section,
                locator=locator,
                seg_limit=seg_limit,
                seg_offset=seg_offset,
                rel_limit=rel_limit,
                rel_offset=rel_offset,
            )
        )

    def _get_document(
        self,
        document_id: str,
        *,
        page: int | None,
        section: int | None,
        locator: str | None,
        seg_limit: int,
        seg_offset: int,
        rel_limit: int,
        rel_offset: int,
    ) -> DocumentPage:
        if not is_text(document_id):
            # No document_key holds a NUL or a lone surrogate (keys are UTF-8 text), and
            # SQLite could not even be asked about one: it is simply not there.
            raise PMGSQueryError("DOCUMENT_NOT_FOUND", "no document has this document_id")
        document = self._one(
            "SELECT id, kind, language, title, source_file_id, locator FROM document "
            "WHERE document_key = ?",
            (document_id,),
        )
        if document is None:
            raise PMGSQueryError("DOCUMENT_NOT_FOUND", "no document has this document_id")
        internal_id = int(document[0])
        where: str
        params: list[object]
        if locator is not None and not is_text(locator):
            raise PMGSQueryError(
                "DOCUMENT_SELECTOR_NOT_FOUND", "the document has no segment for this selector"
            )
        if page is not None:
            where, params = "document_id = ? AND page = ?", [internal_id, page]
        elif section is not None:
            where, params = "document_id = ? AND sequence_number = ?", [internal_id, section]
        elif locator is not None:
            where, params = (
                "document_id = ? AND (locator = ? OR heading = ?)",
                [internal_id, locator, locator],
            )
        else:
            where, params = "document_id = ?", [internal_id]
        count_row = self._one(f"SELECT count(*) FROM document_text WHERE {where}", params)  # noqa: S608
        count = int(count_row[0]) if count_row else 0
        if count == 0 and (page is not None or section is not None or locator is not None):
            raise PMGSQueryError(
                "DOCUMENT_SELECTOR_NOT_FOUND", "the document has no segment for this selector"
            )
        segments: list[DocumentSegment] = [
            {
                "section": int(row[0]),
                "page": row[1],
                "heading": row[2],
                "text_type": row[3],
                "body": str(row[4]),
                "source": self._source(row[5], row[6]),
            }
            for row in self._rows(
                "SELECT sequence_number, page, heading, text_type, body, source_file_id, locator "  # noqa: S608
                f"FROM document_text WHERE {where} ORDER BY sequence_number LIMIT ? OFFSET ?",
                [*params, seg_limit, seg_offset],
            )
        ]
        rel_count_row = self._one(
            "SELECT count(*) FROM document_link WHERE document_id = ?", (internal_id,)
        )
        rel_count = int(rel_count_row[0]) if rel_count_row else 0
        related: list[RelatedClassification] = [
            {**code_ref(row[:5]), "role": str(row[5])}
            for row in self._rows(
                "SELECT c.scheme, c.edition, c.code, c.kind, c.status, l.role "
                "FROM document_link AS l JOIN concept AS c ON c.id = l.concept_id "
                "WHERE l.document_id = ? ORDER BY l.sequence, l.id LIMIT ? OFFSET ?",
                (internal_id, rel_limit, rel_offset),
            )
        ]
        seg_truncated, seg_next = page_fields(count, seg_limit, seg_offset, len(segments))
        rel_truncated, rel_next = page_fields(rel_count, rel_limit, rel_offset, len(related))
        return {
            "record_type": "document_page",
            "document_id": document_id,
            "kind": str(document[1]),
            "language": document[2],
            "title": str(document[3]),
            "release": self._release_ref(),
            "selector": {"page": page, "section": section, "locator": locator},
            "segments": segments,
            "segment_count": count,
            "segment_limit": seg_limit,
            "segment_offset": seg_offset,
            "segments_truncated": seg_truncated,
            "next_segment_offset": seg_next,
            "related_classifications": related,
            "related_classification_count": rel_count,
            "related_classification_limit": rel_limit,
            "related_classification_offset": rel_offset,
            "related_classifications_truncated": rel_truncated,
            "next_related_classification_offset": rel_next,
            "sources": [self._source(document[4], document[5])],
            "viewer_path": document_viewer_path(document_id),
            "attribution": self._attribution,
            "content_role": CONTENT_ROLE,
            "notice": EVIDENCE_NOTICE,
        }
