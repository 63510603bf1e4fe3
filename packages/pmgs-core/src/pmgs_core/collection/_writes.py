"""The collection's writes: each one a single immediate transaction, so a process killed in
the middle leaves the file as it was (ADR 0016)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal

from pmgs_core.collection._chunks import guess_mime, split_items
from pmgs_core.collection._file import CollectionFile, document_record, item_missing, now, sha256
from pmgs_core.collection._limits import (
    check_category,
    check_content,
    check_id,
    check_item_content,
    check_mime,
    check_path,
)
from pmgs_core.collection._schema import restore_index
from pmgs_core.collection._vectors import train
from pmgs_core.errors import PMGSQueryError
from pmgs_core.folding import fold_for_search
from pmgs_core.records import (
    CollectionDocumentDeleted,
    CollectionDocumentPut,
    CollectionItem,
    CollectionItemDeleted,
    CollectionItemsAdded,
    CollectionReindexed,
)

__all__ = ["CollectionWrites"]


class CollectionWrites(CollectionFile):
    """Adding, replacing, updating and deleting the user's documents and items; re-indexing."""

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
    def _new_document(
        conn: sqlite3.Connection, path: str, mime: str, category: str | None, stamp: str
    ) -> int:
        cursor = conn.execute(
            "INSERT INTO documents (path, mime, category, content_sha256, created_at, "
            "updated_at) VALUES (?, ?, ?, '', ?, ?)",
            (path, mime, category, stamp, stamp),
        )
        return int(cursor.lastrowid or 0)

    def _append_items(
        self, conn: sqlite3.Connection, document_id: int, texts: list[str], first: int, stamp: str
    ) -> list[int]:
        """Insert ``texts`` as items from position ``first``; the document's hash follows."""
        ids = []
        for offset, text in enumerate(texts):
            cursor = conn.execute(
                "INSERT INTO items (document_id, position, content, folded, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                (document_id, first + offset, text, fold_for_search(text), stamp, stamp),
            )
            ids.append(int(cursor.lastrowid or 0))
        self._refresh_hash(conn, document_id, stamp)
        self._fold_in(conn, ids)
        return ids

    @staticmethod
    def _refresh_hash(conn: sqlite3.Connection, document_id: int, stamp: str) -> None:
        texts = [
            row[0]
            for row in conn.execute(
                "SELECT content FROM items WHERE document_id = ? ORDER BY position, id",
                (document_id,),
            )
        ]
        conn.execute(
            "UPDATE documents SET content_sha256 = ?, updated_at = ? WHERE id = ?",
            (sha256("\n\n".join(texts)), stamp, document_id),
        )

    def add_item_text(
        self,
        content: str,
        path: str,
        mime: str | None = None,
        category: str | None = None,
    ) -> CollectionItemsAdded:
        """Add ``content`` as new items at the end of the document ``path`` (created if absent).

        A long text becomes several items (see :func:`split_items`). ``mime`` defaults to
        what the path's extension suggests; ``category``, when given, becomes the document's.
        """
        text = check_content(content)
        logical = check_path(path)
        kind = check_mime(mime) or guess_mime(logical)
        label = check_category(category)
        texts = split_items(text)

        def body(conn: sqlite3.Connection) -> CollectionItemsAdded:
            self._check_room(conn, len(texts))
            stamp = now()
            row = conn.execute(
                "SELECT id, (SELECT coalesce(max(position), -1) FROM items "
                "WHERE document_id = documents.id) FROM documents WHERE path = ?",
                (logical,),
            ).fetchone()
            if row is None:
                document_id = self._new_document(conn, logical, kind, label, stamp)
                first = 0
            else:
                document_id, first = int(row[0]), int(row[1]) + 1
                if mime is not None or category is not None:
                    conn.execute(
                        "UPDATE documents SET mime = coalesce(?, mime), "
                        "category = coalesce(?, category) WHERE id = ?",
                        (check_mime(mime), label, document_id),
                    )
            ids = self._append_items(conn, document_id, texts, first, stamp)
            return {
                "record_type": "collection_items_added",
                "item_ids": ids,
                "document": document_record(self._document_row(conn, document_id)),
            }

        return self._write(body)

    def put_document(
        self,
        content: str,
        path: str,
        mime: str | None = None,
        category: str | None = None,
    ) -> CollectionDocumentPut:
        """Make the document ``path`` hold exactly ``content`` (what ``pmgs notes add`` and
        ``import`` do): ``added``, ``replaced``, or ``unchanged`` when text, MIME type and
        category are already those, so importing a folder twice writes nothing."""
        text = check_content(content)
        logical = check_path(path)
        kind = check_mime(mime) or guess_mime(logical)
        label = check_category(category)
        texts = split_items(text)
        digest = sha256("\n\n".join(texts))

        def body(conn: sqlite3.Connection) -> CollectionDocumentPut:
            stamp = now()
            status: Literal["added", "replaced", "unchanged"]
            row = conn.execute(
                "SELECT id, content_sha256, mime, category FROM documents WHERE path = ?",
                (logical,),
            ).fetchone()
            if row is not None and (row[1], row[2], row[3]) == (digest, kind, label):
                status, document_id = "unchanged", int(row[0])
            else:
                if row is None:
                    self._check_room(conn, len(texts))
                    document_id = self._new_document(conn, logical, kind, label, stamp)
                    status = "added"
                else:
                    document_id = int(row[0])
                    conn.execute("DELETE FROM items WHERE document_id = ?", (document_id,))
                    self._check_room(conn, len(texts))
                    conn.execute(
                        "UPDATE documents SET mime = ?, category = ? WHERE id = ?",
                        (kind, label, document_id),
                    )
                    status = "replaced"
                self._append_items(conn, document_id, texts, 0, stamp)
            return {
                "record_type": "collection_document_put",
                "status": status,
                "document": document_record(self._document_row(conn, document_id)),
            }

        return self._write(body)

    def update_item(self, id: int, content: str) -> CollectionItem:
        """Replace the text of item ``id``; its document and position stay."""
        item_id = check_id(id, "id", "ITEM_NOT_FOUND")
        text = check_item_content(content)

        def body(conn: sqlite3.Connection) -> CollectionItem:
            stamp = now()
            row = conn.execute("SELECT document_id FROM items WHERE id = ?", (item_id,)).fetchone()
            if row is None:
                raise item_missing(item_id)
            conn.execute(
                "UPDATE items SET content = ?, folded = ?, updated_at = ? WHERE id = ?",
                (text, fold_for_search(text), stamp, item_id),
            )
            self._refresh_hash(conn, int(row[0]), stamp)
            self._fold_in(conn, [item_id])
            return self._item_record(conn, item_id)

        return self._write(body)

    def delete_item(self, id: int) -> CollectionItemDeleted:
        """Delete item ``id``; a document left without items is deleted with it."""
        item_id = check_id(id, "id", "ITEM_NOT_FOUND")

        def body(conn: sqlite3.Connection) -> CollectionItemDeleted:
            row = conn.execute("SELECT document_id FROM items WHERE id = ?", (item_id,)).fetchone()
            if row is None:
                raise item_missing(item_id)
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
                self._refresh_hash(conn, document_id, now())
            return {
                "record_type": "collection_item_deleted",
                "id": item_id,
                "document_id": document_id,
                "document_deleted": left == 0,
            }

        return self._write(body)

    def delete_document(self, id: int) -> CollectionDocumentDeleted:
        """Delete document ``id`` and all its items."""
        document_id = check_id(id, "id", "DOCUMENT_NOT_FOUND")

        def body(conn: sqlite3.Connection) -> CollectionDocumentDeleted:
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

    def delete_path(self, path: str) -> bool:
        """Delete the document at logical ``path`` if there is one (a watched file gone)."""
        logical = check_path(path)

        def body(conn: sqlite3.Connection) -> bool:
            row = conn.execute("SELECT id FROM documents WHERE path = ?", (logical,)).fetchone()
            if row is None:
                return False
            conn.execute("DELETE FROM items WHERE document_id = ?", (row[0],))
            conn.execute("DELETE FROM documents WHERE id = ?", (row[0],))
            return True

        return self._write(body)

    def lsa_retrain(self) -> CollectionReindexed:
        """Recompute every item's folded text, restore the FTS5 table and its triggers if they
        were damaged, rebuild the index and train the LSA space with every item's vector, all
        in one transaction (ADR 0026).

        Readers keep answering from the previous snapshot meanwhile (WAL); the new index and
        space are visible to all at the commit. :meth:`indexing_status` says ``training``
        while it runs, to every process. Without the ``vectors`` extra, or with fewer than
        20 items, only the index is rebuilt (``dimensions: 0``).
        """
        with self.tracking("lsa_retrain", total=None):

            def body(conn: sqlite3.Connection) -> CollectionReindexed:
                count = _refold(conn)
                dimensions = train(conn, now()) if self.vectors_available else 0
                return {
                    "record_type": "collection_reindexed",
                    "items_indexed": count,
                    "dimensions": dimensions,
                }

            return self._write(body)

    def reindex_collection(self) -> CollectionReindexed:
        """The earlier name of :meth:`lsa_retrain`, kept for clients that use it."""
        return self.lsa_retrain()

    def heal(self) -> int:
        """Bring the FTS index (and the vectors of the current space) in step with the items
        without retraining; returns how many items the index holds (``/heal``'s ``synced``)."""

        def body(conn: sqlite3.Connection) -> int:
            count = _refold(conn)
            missing = [
                int(row[0])
                for row in conn.execute(
                    "SELECT id FROM items WHERE id NOT IN (SELECT item_id FROM item_vectors)"
                )
            ]
            self._fold_in(conn, missing)
            return count

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

        started = now()
        set_state(0)
        try:
            yield set_state
        finally:
            self._write(lambda conn: conn.execute("DELETE FROM indexing_state WHERE id = 1"))


def _refold(conn: sqlite3.Connection) -> int:
    """Fold every item's text again and rebuild the FTS index; returns the item count."""
    rows = conn.execute("SELECT id, content FROM items").fetchall()
    for row in rows:
        conn.execute(
            "UPDATE items SET folded = ? WHERE id = ? AND folded IS NOT ?",
            (fold_for_search(row[1]), row[0], fold_for_search(row[1])),
        )
    restore_index(conn)
    conn.execute("INSERT INTO items_fts(items_fts) VALUES ('rebuild')")
    return len(rows)
