"""The collection's reads: items, documents page by page, categories, counts, search.

See ADR 0016.
"""

from __future__ import annotations

import math
import os
import sqlite3
from collections.abc import Callable

from pmgs_core.collection._file import (
    DOCUMENT_COLUMNS,
    CollectionFile,
    document_record,
    row_record,
)
from pmgs_core.collection._limits import (
    DEFAULT_PAGE_LIMIT,
    MAX_PAGE_LIMIT,
    check_category,
    check_id,
    check_limit,
    check_page,
    check_path,
)
from pmgs_core.collection._search import search_items
from pmgs_core.errors import PMGSQueryError
from pmgs_core.records import (
    CollectionCategories,
    CollectionDocumentList,
    CollectionDocumentPage,
    CollectionItem,
    CollectionSearch,
    DocumentItem,
    IndexingStatus,
    ModelInfo,
)

__all__ = ["CollectionReads"]


class CollectionReads(CollectionFile):
    """What the collection holds, read under the file's lock (WAL: never blocked by a writer)."""

    def get_item_by_id(self, id: int) -> CollectionItem:
        item_id = check_id(id, "id", "ITEM_NOT_FOUND")
        return self._read(lambda conn: self._item_record(conn, item_id))

    def list_documents(
        self, limit: int = DEFAULT_PAGE_LIMIT, page: int = 1, category: str | None = None
    ) -> CollectionDocumentList:
        """One page of documents, oldest first; a page past the end has ``items: []``."""
        size = check_limit(limit)
        number = check_page(page)
        label = check_category(category)

        def body(conn: sqlite3.Connection) -> CollectionDocumentList:
            where, args = ("WHERE d.category = ?", (label,)) if label is not None else ("", ())
            count_sql = f"SELECT count(*) FROM documents d {where}"  # noqa: S608 - constant parts
            total = int(conn.execute(count_sql, args).fetchone()[0])
            rows = conn.execute(
                f"SELECT {DOCUMENT_COLUMNS} FROM documents d {where} ORDER BY d.id "  # noqa: S608
                "LIMIT ? OFFSET ?",
                (*args, size, (number - 1) * size),
            ).fetchall()
            return {
                "record_type": "collection_document_list",
                "items": [document_record(row) for row in rows],
                "total_count": total,
                "total_pages": math.ceil(total / size),
                "page": number,
                "limit": size,
                "category": label,
            }

        return self._read(body)

    def get_document(
        self, id: int, limit: int = DEFAULT_PAGE_LIMIT, offset: int = 0
    ) -> CollectionDocumentPage:
        """Document ``id`` with one page of its items in order (the items are its text)."""
        document_id = check_id(id, "id", "DOCUMENT_NOT_FOUND")
        return self._document_page(
            lambda conn: self._document_row(conn, document_id), limit, offset
        )

    def find_document(
        self, path: str, limit: int = DEFAULT_PAGE_LIMIT, offset: int = 0
    ) -> CollectionDocumentPage:
        """The document at logical ``path``, as :meth:`get_document` gives it."""
        logical = check_path(path)

        def row_for(conn: sqlite3.Connection) -> sqlite3.Row:
            row = conn.execute("SELECT id FROM documents WHERE path = ?", (logical,)).fetchone()
            if row is None:
                raise PMGSQueryError(
                    "DOCUMENT_NOT_FOUND",
                    "the collection has no document at that path",
                    {"argument": "path"},
                )
            return self._document_row(conn, int(row[0]))

        return self._document_page(row_for, limit, offset)

    def _document_page(
        self, row_for: Callable[[sqlite3.Connection], sqlite3.Row], limit: int, offset: int
    ) -> CollectionDocumentPage:
        size = check_limit(limit, MAX_PAGE_LIMIT)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise PMGSQueryError(
                "INVALID_OFFSET", "offset must be an integer of 0 or more", {"argument": "offset"}
            )

        def body(conn: sqlite3.Connection) -> CollectionDocumentPage:
            row = row_for(conn)
            items = conn.execute(
                "SELECT id, position, content, created_at, updated_at FROM items "
                "WHERE document_id = ? ORDER BY position, id LIMIT ? OFFSET ?",
                (row["id"], size + 1, offset),
            ).fetchall()
            more = len(items) > size
            return {
                "record_type": "collection_document",
                "document": document_record(row),
                "items": [row_record(item, DocumentItem) for item in items[:size]],
                "limit": size,
                "offset": offset,
                "has_more": more,
                "next_offset": offset + size if more else None,
            }

        return self._read(body)

    def list_categories(self) -> CollectionCategories:
        """The distinct categories with their document counts (for the search filter)."""

        def body(conn: sqlite3.Connection) -> CollectionCategories:
            rows = conn.execute(
                "SELECT category, count(*) FROM documents WHERE category IS NOT NULL "
                "GROUP BY category ORDER BY category"
            ).fetchall()
            uncategorised = conn.execute(
                "SELECT count(*) FROM documents WHERE category IS NULL"
            ).fetchone()[0]
            return {
                "record_type": "collection_categories",
                "categories": [{"category": r[0], "document_count": r[1]} for r in rows],
                "uncategorised_document_count": uncategorised,
            }

        return self._read(body)

    def get_document_count(self, category: str | None = None) -> int:
        label = check_category(category)

        def body(conn: sqlite3.Connection) -> int:
            if label is None:
                return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])
            return int(
                conn.execute(
                    "SELECT count(*) FROM documents WHERE category = ?", (label,)
                ).fetchone()[0]
            )

        return self._read(body)

    def paths_under(self, prefix: str) -> list[str]:
        """The logical paths that start with ``prefix`` (a watched folder's notes); none when
        ``prefix`` is not text (a folder name of undecodable bytes: no note can be under it)."""
        if prefix.encode("utf-8", "replace").decode("utf-8") != prefix:
            return []
        return self._read(
            lambda conn: [
                row[0]
                for row in conn.execute(
                    "SELECT path FROM documents WHERE substr(path, 1, ?) = ? ORDER BY path",
                    (len(prefix), prefix),
                )
            ]
        )

    def get_item_count(self) -> int:
        return self._read(
            lambda conn: int(conn.execute("SELECT count(*) FROM items").fetchone()[0])
        )

    def search_text(
        self,
        content: str,
        limit: int = 5,
        min_score: float = 0.3,
        group_by_document: bool = True,
        category: str | None = None,
    ) -> CollectionSearch:
        """Hybrid search of the items (see :mod:`._search`): lexical, and LSA once a space
        is trained (a writable collection trains it first when due); an empty query finds
        nothing."""
        label = check_category(category)
        self._before_search()
        return self._read(
            lambda conn: search_items(
                conn,
                content,
                limit=limit,
                min_score=min_score,
                group_by_document=group_by_document,
                category=label,
                space=self._current_space(conn),
                vectors=lambda space: self._current_vectors(conn, space),
            )
        )

    def _before_search(self) -> None:
        """What a search does first; a writable collection trains its space here."""

    def model_info(self) -> ModelInfo:
        """The LSA space that answers the vector half (``/model_name``; ADR 0026)."""

        def body(conn: sqlite3.Connection) -> ModelInfo:
            row = conn.execute(
                "SELECT dimensions, trained_items, trained_at FROM lsa_model WHERE id = 1"
            ).fetchone()
            return {
                "edition": "community",
                "model": "lsa",
                "dimensions": int(row[0]) if row else 0,
                "trained_items": int(row[1]) if row else 0,
                "trained_at": row[2] if row else None,
                "vector_search_available": self.vectors_available,
            }

        return self._read(body)

    def indexing_status(self) -> IndexingStatus:
        """``idle``, or the task another call or process is running, with its progress.

        A task whose process is gone (killed mid-import) reads as idle: its transaction
        rolled back, so there is nothing in progress.
        """
        row = self._read(
            lambda conn: conn.execute(
                "SELECT task, done, total, started_at, pid FROM indexing_state WHERE id = 1"
            ).fetchone()
        )
        if row is None or not _pid_alive(int(row["pid"])):
            return {"status": "idle"}
        return {
            "status": "training" if row["task"] == "lsa_retrain" else "indexing",
            "task": row["task"],
            "done": row["done"],
            "total": row["total"],
            "started_at": row["started_at"],
        }


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
