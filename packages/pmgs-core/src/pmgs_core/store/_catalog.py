"""The catalog: release info, document and quarantine lists, categories and counts.

Release info and categories read whole tables' groups, so each is computed once per store
and copied out; the lists are paged in package (id) order with exact index counts (ADRs 0004, 0009).
"""

from __future__ import annotations

from typing import Generic, TypeVar

from pmgs_core.errors import PMGSQueryError
from pmgs_core.records import (
    CONTENT_ROLE,
    EVIDENCE_NOTICE,
    Categories,
    DocumentListItem,
    DocumentListPage,
    QuarantineItem,
    QuarantinePage,
    ReleaseInfo,
    ThemeCategory,
)
from pmgs_core.records._pages import ListPageBase
from pmgs_core.store._arguments import check_kinds, check_limit, check_offset, page_fields
from pmgs_core.store._concepts import document_head
from pmgs_core.store._connection import StoreConnection

__all__ = ["CatalogMixin"]

T = TypeVar("T")


class _ListFields(ListPageBase, Generic[T]):
    """The fields every browse list shares, with its items (see ``_list_page``)."""

    items: list[T]


class CatalogMixin(StoreConnection):
    """The catalog capability of :class:`pmgs_core.PMGSStore`."""

    def release_info(self, release: str = "current") -> ReleaseInfo:
        """What this database holds: release, reference date, hashes, counts.

        Counts exclude reference-only records; they are computed once per store.
        """
        self._check_release(release)
        return self._locked(self._release_info)

    def _release_info(self) -> ReleaseInfo:
        if self._counts_cache is None:
            schema_version = int(self._metadata.get("schema_version", "0"))
            self._counts_cache = {
                "record_type": "release_info",
                "release_id": self._release_id,
                "reference_date": self._reference_date,
                "source_manifest_sha256": self._source_sha256,
                "schema_version": schema_version,
                "builder_version": self._metadata.get("builder_version"),
                "logical_digest": self._metadata.get("logical_digest"),
                "attribution": self._attribution,
                "database": self._resolved.path.name,
                "classification_counts": [
                    {"scheme": str(row[0]), "edition": row[1] or None, "count": int(row[2])}
                    for row in self._rows(
                        "SELECT scheme, edition, count(*) FROM concept "
                        "WHERE status = 'canonical' GROUP BY scheme, edition "
                        "ORDER BY scheme, edition"
                    )
                ],
                "document_counts": [
                    {"kind": str(row[0]), "count": int(row[1])}
                    for row in self._rows(
                        "SELECT kind, count(*) FROM document GROUP BY kind ORDER BY kind"
                    )
                ],
                "quarantine_counts": [
                    {"data_group": str(row[0]), "reason": str(row[1]), "count": int(row[2])}
                    for row in self._rows(
                        "SELECT data_group, reason, count(*) FROM quarantine "
                        "GROUP BY data_group, reason ORDER BY data_group, reason"
                    )
                ],
            }
        return self._counts_cache.copy()

    def list_documents(
        self,
        kind: str | None = None,
        release: str = "current",
        *,
        limit: int = 20,
        offset: int = 0,
    ) -> DocumentListPage:
        """Documents in a stable order (by internal id = package order), optionally one kind.

        For clients that browse a document database; ``total_count`` is exact (an index
        count), ``document_id`` is what :meth:`get_document` takes.
        """
        kinds = check_kinds(kind)
        self._check_release(release)
        checked_limit = check_limit(limit, "limit")
        checked_offset = check_offset(offset, "offset")

        def run() -> DocumentListPage:
            where, params = ("", []) if kinds is None else ("WHERE d.kind = ?", [kinds[0]])
            total = self._count_documents(kinds[0] if kinds else None)
            rows = self._rows(
                "SELECT d.document_key, d.kind, d.language, d.title, d.source_file_id, "  # noqa: S608
                "d.locator, (SELECT count(*) FROM document_text AS s WHERE s.document_id = d.id) "
                f"FROM document AS d {where} ORDER BY d.id LIMIT ? OFFSET ?",
                [*params, checked_limit, checked_offset],
            )
            items: list[DocumentListItem] = [
                {
                    **document_head(row),
                    "segment_count": int(row[6]),
                    "source": self._source(row[4], row[5]),
                }
                for row in rows
            ]
            return {
                "record_type": "document_list_page",
                "kind": kinds[0] if kinds else None,
                **self._list_page(items, total, checked_limit, checked_offset),
                "content_role": CONTENT_ROLE,
                "notice": EVIDENCE_NOTICE,
            }

        return self._locked(run)

    def list_quarantine(
        self,
        data_group: str | None = None,
        release: str = "current",
        *,
        limit: int = 20,
        offset: int = 0,
    ) -> QuarantinePage:
        """The records the build kept in quarantine, in package order, optionally one group.

        They are never answered as classifications; this is how a user sees what the
        package said where pmgs could not read it with certainty (ADR 0009).
        """
        self._check_release(release)
        if data_group is not None and (not isinstance(data_group, str) or len(data_group) > 64):
            raise PMGSQueryError("INVALID_ARGUMENT", "data_group must be a data group name")
        checked_limit = check_limit(limit, "limit")
        checked_offset = check_offset(offset, "offset")

        def run() -> QuarantinePage:
            where, params = (
                ("", []) if data_group is None else ("WHERE data_group = ?", [data_group])
            )
            count_row = self._one(f"SELECT count(*) FROM quarantine {where}", params)  # noqa: S608
            total = int(count_row[0]) if count_row else 0
            rows = self._rows(
                "SELECT data_group, reason, message, raw, source_file_id, locator "  # noqa: S608
                f"FROM quarantine {where} ORDER BY id LIMIT ? OFFSET ?",
                [*params, checked_limit, checked_offset],
            )
            items: list[QuarantineItem] = [
                {
                    "data_group": str(row[0]),
                    "reason": str(row[1]),
                    "message": str(row[2]),
                    "raw": str(row[3]),
                    "source": None if row[4] is None else self._source(row[4], str(row[5])),
                }
                for row in rows
            ]
            return {
                "record_type": "quarantine_page",
                "data_group": data_group,
                **self._list_page(items, total, checked_limit, checked_offset),
            }

        return self._locked(run)

    def _list_page(self, items: list[T], total: int, limit: int, offset: int) -> _ListFields[T]:
        """The fields every browse list shares, in record order: the release, the items,
        the exact total and the paging that follows from it."""
        has_more, next_offset = page_fields(total, limit, offset, len(items))
        return {
            "release": self._release_ref(),
            "items": items,
            "count": len(items),
            "total_count": total,
            "limit": limit,
            "offset": offset,
            "has_more": has_more,
            "next_offset": next_offset,
            "attribution": self._attribution,
        }

    def _count_documents(self, kind: str | None) -> int:
        if kind is None:
            row = self._one("SELECT count(*) FROM document")
        else:
            row = self._one("SELECT count(*) FROM document WHERE kind = ?", (kind,))
        return int(row[0]) if row else 0

    def document_count(self, kind: str | None = None, release: str = "current") -> int:
        """How many documents (of one kind) the database holds."""
        kinds = check_kinds(kind)
        self._check_release(release)
        with self._lock:
            return self._count_documents(kinds[0] if kinds else None)

    def categories(self, release: str = "current") -> Categories:
        """Document kinds with counts, and F-term themes with their canonical code counts.

        Computed once per store (the theme count reads every F-term concept).
        """
        self._check_release(release)
        return self._locked(self._categories)

    def _categories(self) -> Categories:
        if self._categories_cache is None:
            themes: list[ThemeCategory] = []
            titles = {
                str(row[0]): str(row[1])
                for row in self._rows(
                    "SELECT c.code, (SELECT t.body FROM text AS t WHERE t.revision_id = r.id "
                    "AND t.language = 'ja' ORDER BY t.line, t.id LIMIT 1) "
                    "FROM concept AS c JOIN revision AS r ON r.concept_id = c.id "
                    "WHERE c.scheme = 'fterm' AND c.kind = 'theme' AND c.status = 'canonical'"
                )
                if row[1] is not None
            }
            for theme, count in self._rows(
                "SELECT substr(code, 1, 5), count(*) FROM concept "
                "WHERE scheme = 'fterm' AND status = 'canonical' GROUP BY 1 ORDER BY 1"
            ):
                themes.append(
                    {"theme": str(theme), "title": titles.get(str(theme)), "count": int(count)}
                )
            self._categories_cache = {
                "record_type": "categories",
                "release": self._release_ref(),
                "document_kinds": [
                    {"kind": str(row[0]), "count": int(row[1])}
                    for row in self._rows(
                        "SELECT kind, count(*) FROM document GROUP BY kind ORDER BY kind"
                    )
                ],
                "themes": themes,
                "attribution": self._attribution,
            }
        return self._categories_cache.copy()
