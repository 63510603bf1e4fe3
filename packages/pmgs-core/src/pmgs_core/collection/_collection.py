"""The user's collection: documents of their own (notes, search formulas, excerpts) beside
the read-only release, stored as items (chunks) in a separate, writable SQLite file.

What lives here is evidence written by the user, never JPO text: every record says
``source: "user_collection"`` so that no interface can pass it off as an official text, and
nothing in it is ever executed or followed.

One :class:`Collection` may be shared by the threads of a server (a lock serialises its
calls); several processes may open the same file at once (WAL, busy timeout, one
``BEGIN IMMEDIATE`` transaction per write, see :mod:`._schema`).
"""

from __future__ import annotations

import hashlib
import math
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, TypeVar

from pmgs_core.collection._chunks import guess_mime, split_items
from pmgs_core.collection._limits import (
    DEFAULT_PAGE_LIMIT,
    MAX_PAGE_LIMIT,
    check_category,
    check_content,
    check_id,
    check_item_content,
    check_limit,
    check_mime,
    check_page,
    check_path,
)
from pmgs_core.collection._schema import connect, restore_index
from pmgs_core.collection._search import search_items
from pmgs_core.errors import PMGSQueryError
from pmgs_core.search import fold_for_search

__all__ = ["COLLECTION_FILE", "MAX_COLLECTION_ITEMS", "SOURCE", "Collection"]

COLLECTION_FILE: Final = "collection/collection.sqlite"
"""Where the collection lives below the data directory's root."""
MAX_COLLECTION_ITEMS: Final = 1_000_000
SOURCE: Final = "user_collection"

T = TypeVar("T")

_DOCUMENT_COLUMNS: Final = (
    "d.id, d.path, d.mime, d.category, d.content_sha256, d.created_at, d.updated_at, "
    "(SELECT count(*) FROM items i WHERE i.document_id = d.id) AS chunk_count"
)
_ITEM_COLUMNS: Final = (
    "i.id, i.document_id, d.path, d.mime, d.category, i.position, i.content, "
    "i.created_at, i.updated_at"
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _document(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "path": row["path"],
        "mime": row["mime"],
        "category": row["category"],
        "chunk_count": row["chunk_count"],
        "content_sha256": row["content_sha256"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "source": SOURCE,
    }


def _item(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "document_id": row["document_id"],
        "path": row["path"],
        "mime": row["mime"],
        "category": row["category"],
        "position": row["position"],
        "content": row["content"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "source": SOURCE,
    }


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Collection:
    """A writable collection file; open it with the file's path (created when absent)."""

    def __init__(self, path: str | os.PathLike[str], *, max_items: int = MAX_COLLECTION_ITEMS):
        self.path = Path(path)
        self.max_items = max_items
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = connect(self.path)
        self._conn.row_factory = sqlite3.Row

    @classmethod
    def in_data_dir(cls, root: str | os.PathLike[str]) -> Collection:
        """The collection of a data directory (``<root>/collection/collection.sqlite``)."""
        return cls(Path(root) / COLLECTION_FILE)

    # --- plumbing --------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Collection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise PMGSQueryError("STORE_CLOSED", "the collection has been closed")
        return self._conn

    def _read(self, body: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            try:
                return body(self._connection())
            except sqlite3.OperationalError as exc:
                raise _operational(exc) from exc

    def _write(self, body: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``body`` in one immediate transaction: all of it lands, or none of it."""
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise _operational(exc) from exc
            try:
                result = body(conn)
                conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError):
                    raise _operational(exc) from exc
                raise
            return result

    def _check_room(self, conn: sqlite3.Connection, adding: int) -> None:
        count = int(conn.execute("SELECT count(*) FROM items").fetchone()[0])
        if count + adding > self.max_items:
            raise PMGSQueryError(
                "TOO_MANY_ITEMS",
                f"the collection holds {count} items; adding {adding} would pass its limit "
                f"of {self.max_items}",
                {"item_count": count, "adding": adding, "max_items": self.max_items},
            )

    @staticmethod
    def _insert_items(
        conn: sqlite3.Connection, document_id: int, texts: list[str], first: int, now: str
    ) -> list[int]:
        ids = []
        for offset, text in enumerate(texts):
            cursor = conn.execute(
                "INSERT INTO items (document_id, position, content, folded, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                (document_id, first + offset, text, fold_for_search(text), now, now),
            )
            ids.append(int(cursor.lastrowid or 0))
        return ids

    @staticmethod
    def _refresh_hash(conn: sqlite3.Connection, document_id: int, now: str) -> None:
        texts = [
            row[0]
            for row in conn.execute(
                "SELECT content FROM items WHERE document_id = ? ORDER BY position, id",
                (document_id,),
            )
        ]
        conn.execute(
            "UPDATE documents SET content_sha256 = ?, updated_at = ? WHERE id = ?",
            (_sha256("\n\n".join(texts)), now, document_id),
        )

    def _document_row(self, conn: sqlite3.Connection, document_id: int) -> sqlite3.Row:
        row: sqlite3.Row | None = conn.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM documents d WHERE d.id = ?",  # noqa: S608 - constant
            (document_id,),
        ).fetchone()
        if row is None:
            raise PMGSQueryError(
                "DOCUMENT_NOT_FOUND",
                f"the collection has no document {document_id}",
                {"argument": "id", "id": document_id},
            )
        return row

    # --- writing ----------------------------------------------------------------------------

    def add_item_text(
        self,
        content: str,
        path: str,
        mime: str | None = None,
        category: str | None = None,
    ) -> dict[str, Any]:
        """Add ``content`` as new items at the end of the document ``path`` (created if absent).

        A long text becomes several items (see :func:`split_items`). ``mime`` defaults to
        what the path's extension suggests; ``category``, when given, becomes the document's.
        """
        text = check_content(content)
        logical = check_path(path)
        kind = check_mime(mime) or guess_mime(logical)
        label = check_category(category)
        texts = split_items(text)

        def body(conn: sqlite3.Connection) -> dict[str, Any]:
            self._check_room(conn, len(texts))
            now = _now()
            row = conn.execute(
                "SELECT id, (SELECT coalesce(max(position), -1) FROM items "
                "WHERE document_id = documents.id) FROM documents WHERE path = ?",
                (logical,),
            ).fetchone()
            if row is None:
                cursor = conn.execute(
                    "INSERT INTO documents (path, mime, category, content_sha256, created_at, "
                    "updated_at) VALUES (?, ?, ?, '', ?, ?)",
                    (logical, kind, label, now, now),
                )
                document_id, first = int(cursor.lastrowid or 0), 0
            else:
                document_id, first = int(row[0]), int(row[1]) + 1
                if mime is not None or category is not None:
                    conn.execute(
                        "UPDATE documents SET mime = coalesce(?, mime), "
                        "category = coalesce(?, category) WHERE id = ?",
                        (check_mime(mime), label, document_id),
                    )
            ids = self._insert_items(conn, document_id, texts, first, now)
            self._refresh_hash(conn, document_id, now)
            return {
                "record_type": "collection_items_added",
                "item_ids": ids,
                "document": _document(self._document_row(conn, document_id)),
            }

        return self._write(body)

    def put_document(
        self,
        content: str,
        path: str,
        mime: str | None = None,
        category: str | None = None,
    ) -> dict[str, Any]:
        """Make the document ``path`` hold exactly ``content`` (what ``pmgs notes add`` and
        ``import`` do): ``added``, ``replaced``, or ``unchanged`` when text, MIME type and
        category are already those, so importing a folder twice writes nothing."""
        text = check_content(content)
        logical = check_path(path)
        kind = check_mime(mime) or guess_mime(logical)
        label = check_category(category)
        texts = split_items(text)
        digest = _sha256("\n\n".join(texts))

        def body(conn: sqlite3.Connection) -> dict[str, Any]:
            now = _now()
            row = conn.execute(
                "SELECT id, content_sha256, mime, category FROM documents WHERE path = ?",
                (logical,),
            ).fetchone()
            if row is not None and (row[1], row[2], row[3]) == (digest, kind, label):
                status, document_id = "unchanged", int(row[0])
            else:
                if row is None:
                    self._check_room(conn, len(texts))
                    cursor = conn.execute(
                        "INSERT INTO documents (path, mime, category, content_sha256, "
                        "created_at, updated_at) VALUES (?, ?, ?, '', ?, ?)",
                        (logical, kind, label, now, now),
                    )
                    status, document_id = "added", int(cursor.lastrowid or 0)
                else:
                    document_id = int(row[0])
                    conn.execute("DELETE FROM items WHERE document_id = ?", (document_id,))
                    self._check_room(conn, len(texts))
                    conn.execute(
                        "UPDATE documents SET mime = ?, category = ? WHERE id = ?",
                        (kind, label, document_id),
                    )
                    status = "replaced"
                self._insert_items(conn, document_id, texts, 0, now)
                self._refresh_hash(conn, document_id, now)
            return {
                "record_type": "collection_document_put",
                "status": status,
                "document": _document(self._document_row(conn, document_id)),
            }

        return self._write(body)

    def update_item(self, id: int, content: str) -> dict[str, Any]:
        """Replace the text of item ``id``; its document and position stay."""
        item_id = check_id(id, "id", "ITEM_NOT_FOUND")
        text = check_item_content(content)

        def body(conn: sqlite3.Connection) -> dict[str, Any]:
            now = _now()
            row = conn.execute("SELECT document_id FROM items WHERE id = ?", (item_id,)).fetchone()
            if row is None:
                raise _item_missing(item_id)
            conn.execute(
                "UPDATE items SET content = ?, folded = ?, updated_at = ? WHERE id = ?",
                (text, fold_for_search(text), now, item_id),
            )
            self._refresh_hash(conn, int(row[0]), now)
            return self._item_record(conn, item_id)

        return self._write(body)

    def delete_item(self, id: int) -> dict[str, Any]:
        """Delete item ``id``; a document left without items is deleted with it."""
        item_id = check_id(id, "id", "ITEM_NOT_FOUND")

        def body(conn: sqlite3.Connection) -> dict[str, Any]:
            row = conn.execute("SELECT document_id FROM items WHERE id = ?", (item_id,)).fetchone()
            if row is None:
                raise _item_missing(item_id)
            document_id = int(row[0])
            conn.execute("DELETE FROM items WHERE id = ?", (item_id,))
            left = int(
                conn.execute(
                    "SELECT count(*) FROM items WHERE document_id = ?", (document_id,)
                ).fetchone()[0]
            )
            if left == 0:
                conn.execute("DELETE FROM documents WHERE id = ?", (document_id,))
            else:
                self._refresh_hash(conn, document_id, _now())
            return {
                "record_type": "collection_item_deleted",
                "id": item_id,
                "document_id": document_id,
                "document_deleted": left == 0,
            }

        return self._write(body)

    def delete_document(self, id: int) -> dict[str, Any]:
        """Delete document ``id`` and all its items."""
        document_id = check_id(id, "id", "DOCUMENT_NOT_FOUND")

        def body(conn: sqlite3.Connection) -> dict[str, Any]:
            row = self._document_row(conn, document_id)
            conn.execute("DELETE FROM items WHERE document_id = ?", (document_id,))
            conn.execute("DELETE FROM documents WHERE id = ?", (document_id,))
            return {
                "record_type": "collection_document_deleted",
                "id": document_id,
                "path": row["path"],
                "items_deleted": row["chunk_count"],
            }

        return self._write(body)

    # --- reading ----------------------------------------------------------------------------

    def _item_record(self, conn: sqlite3.Connection, item_id: int) -> dict[str, Any]:
        row = conn.execute(
            f"SELECT {_ITEM_COLUMNS} FROM items i JOIN documents d ON d.id = i.document_id "  # noqa: S608
            "WHERE i.id = ?",
            (item_id,),
        ).fetchone()
        if row is None:
            raise _item_missing(item_id)
        return {"record_type": "collection_item", **_item(row)}

    def get_item_by_id(self, id: int) -> dict[str, Any]:
        item_id = check_id(id, "id", "ITEM_NOT_FOUND")
        return self._read(lambda conn: self._item_record(conn, item_id))

    def list_documents(
        self, limit: int = DEFAULT_PAGE_LIMIT, page: int = 1, category: str | None = None
    ) -> dict[str, Any]:
        """One page of documents, oldest first; a page past the end has ``items: []``."""
        size = check_limit(limit)
        number = check_page(page)
        label = check_category(category)

        def body(conn: sqlite3.Connection) -> dict[str, Any]:
            where, args = ("WHERE d.category = ?", (label,)) if label is not None else ("", ())
            count_sql = f"SELECT count(*) FROM documents d {where}"  # noqa: S608 - constant parts
            total = int(conn.execute(count_sql, args).fetchone()[0])
            rows = conn.execute(
                f"SELECT {_DOCUMENT_COLUMNS} FROM documents d {where} ORDER BY d.id "  # noqa: S608
                "LIMIT ? OFFSET ?",
                (*args, size, (number - 1) * size),
            ).fetchall()
            return {
                "record_type": "collection_document_list",
                "items": [_document(row) for row in rows],
                "total_count": total,
                "total_pages": math.ceil(total / size),
                "page": number,
                "limit": size,
                "category": label,
            }

        return self._read(body)

    def get_document(
        self, id: int, limit: int = DEFAULT_PAGE_LIMIT, offset: int = 0
    ) -> dict[str, Any]:
        """Document ``id`` with one page of its items in order (the items are its text)."""
        document_id = check_id(id, "id", "DOCUMENT_NOT_FOUND")
        return self._document_page(
            lambda conn: self._document_row(conn, document_id), limit, offset
        )

    def find_document(
        self, path: str, limit: int = DEFAULT_PAGE_LIMIT, offset: int = 0
    ) -> dict[str, Any]:
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
    ) -> dict[str, Any]:
        size = check_limit(limit, MAX_PAGE_LIMIT)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise PMGSQueryError(
                "INVALID_OFFSET", "offset must be an integer of 0 or more", {"argument": "offset"}
            )

        def body(conn: sqlite3.Connection) -> dict[str, Any]:
            row = row_for(conn)
            items = conn.execute(
                "SELECT id, position, content, created_at, updated_at FROM items "
                "WHERE document_id = ? ORDER BY position, id LIMIT ? OFFSET ?",
                (row["id"], size + 1, offset),
            ).fetchall()
            more = len(items) > size
            return {
                "record_type": "collection_document",
                "document": _document(row),
                "items": [dict(item) for item in items[:size]],
                "limit": size,
                "offset": offset,
                "has_more": more,
                "next_offset": offset + size if more else None,
            }

        return self._read(body)

    def list_categories(self) -> dict[str, Any]:
        """The distinct categories with their document counts (for the search filter)."""

        def body(conn: sqlite3.Connection) -> dict[str, Any]:
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

    def get_item_count(self) -> int:
        return self._read(
            lambda conn: int(conn.execute("SELECT count(*) FROM items").fetchone()[0])
        )

    def search_text(
        self,
        content: str,
        limit: int = 5,
        min_score: float = 0.0,
        group_by_document: bool = True,
        category: str | None = None,
    ) -> dict[str, Any]:
        """Lexical search of the items (see :mod:`._search`); an empty query finds nothing."""
        return self._read(
            lambda conn: search_items(
                conn,
                content,
                limit=limit,
                min_score=min_score,
                group_by_document=group_by_document,
                category=check_category(category),
            )
        )

    # --- indexing ----------------------------------------------------------------------------

    def reindex_collection(self) -> dict[str, Any]:
        """Recompute every item's folded text, restore the FTS5 table and its triggers if they
        were damaged, and rebuild the index, in one transaction.

        Readers keep answering from the previous snapshot meanwhile (WAL); the new index is
        visible to all at the commit. This is what ``lsa_retrain`` does for a vector store,
        without any model: a folding rule changed by an upgrade, or an index damaged by an
        external tool, is repaired by it.
        """
        with self.tracking("reindex", total=None):

            def body(conn: sqlite3.Connection) -> dict[str, Any]:
                rows = conn.execute("SELECT id, content FROM items").fetchall()
                for row in rows:
                    conn.execute(
                        "UPDATE items SET folded = ? WHERE id = ? AND folded IS NOT ?",
                        (fold_for_search(row[1]), row[0], fold_for_search(row[1])),
                    )
                restore_index(conn)
                conn.execute("INSERT INTO items_fts(items_fts) VALUES ('rebuild')")
                return {"record_type": "collection_reindexed", "items_indexed": len(rows)}

            return self._write(body)

    @contextmanager
    def tracking(self, task: str, total: int | None) -> Iterator[Callable[[int], None]]:
        """Publish ``task`` in :meth:`indexing_status` while the block runs; the callable it
        yields records how many of ``total`` steps are done."""

        def set_state(done: int) -> None:
            self._write(
                lambda conn: conn.execute(
                    "INSERT OR REPLACE INTO indexing_state (id, task, done, total, started_at, pid)"
                    " VALUES (1, ?, ?, ?, ?, ?)",
                    (task, done, total, started, os.getpid()),
                )
            )

        started = _now()
        set_state(0)
        try:
            yield set_state
        finally:
            self._write(lambda conn: conn.execute("DELETE FROM indexing_state WHERE id = 1"))

    def indexing_status(self) -> dict[str, Any]:
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
            "status": "indexing",
            "task": row["task"],
            "done": row["done"],
            "total": row["total"],
            "started_at": row["started_at"],
        }


def _item_missing(item_id: int) -> PMGSQueryError:
    return PMGSQueryError(
        "ITEM_NOT_FOUND", f"the collection has no item {item_id}", {"argument": "id", "id": item_id}
    )


def _operational(exc: sqlite3.OperationalError) -> PMGSQueryError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return PMGSQueryError(
            "COLLECTION_BUSY", "the collection is busy with another writer; try again"
        )
    return PMGSQueryError("COLLECTION_ERROR", "the collection could not complete the operation")
