"""One open collection file: its connection, lock and transactions, shared by the reads and
the writes of :class:`~pmgs_core.collection.Collection` (WAL and busy timeout: ``_schema``).
See ADR 0016.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, TypeVar, cast

from pmgs_core.collection._schema import connect
from pmgs_core.collection._vectors import (
    Space,
    Vectors,
    available,
    fold_in,
    load_space,
    load_vectors,
)
from pmgs_core.connection import LockedConnection
from pmgs_core.errors import PMGSQueryError
from pmgs_core.records import CollectionDocument, CollectionItem

__all__ = [
    "MAX_COLLECTION_ITEMS",
    "SOURCE",
    "CollectionFile",
    "document_record",
    "row_record",
]

MAX_COLLECTION_ITEMS: Final = 1_000_000
SOURCE: Final = "user_collection"

T = TypeVar("T")
R = TypeVar("R", bound=Mapping[str, Any])

DOCUMENT_COLUMNS: Final = (
    "d.id, d.path, d.mime, d.category, d.content_sha256, d.created_at, d.updated_at, "
    "(SELECT count(*) FROM items i WHERE i.document_id = d.id) AS chunk_count"
)
_ITEM_COLUMNS: Final = (
    "i.id, i.document_id, d.path, d.mime, d.category, i.position, i.content, "
    "i.created_at, i.updated_at"
)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CollectionFile(LockedConnection):
    """The connection of one collection file; a lock serialises the threads that share it."""

    def __init__(self, path: str | os.PathLike[str], *, max_items: int = MAX_COLLECTION_ITEMS):
        self.path = Path(path)
        self.max_items = max_items
        connection = connect(self.path)
        connection.row_factory = sqlite3.Row
        self._space: Space | None = None
        self._vectors: tuple[tuple[int, int, int], Vectors] | None = None
        self._writes = 0
        self.vectors_available = available()
        super().__init__(connection)

    def _current_space(self, conn: sqlite3.Connection) -> Space | None:
        """The trained LSA space, or ``None`` (none trained, or no numpy: ADR 0026)."""
        if not self.vectors_available:
            return None
        self._space = load_space(conn, self._space)
        return self._space

    def _current_vectors(self, conn: sqlite3.Connection, space: Space) -> Vectors:
        """The stored vectors, read again only when the file changed: ``data_version`` moves
        on another connection's commit, ``_writes`` on this one's."""
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        key = (version, self._writes, space.generation)
        if self._vectors is None or self._vectors[0] != key:
            self._vectors = (key, load_vectors(conn, space.dimensions))
        return self._vectors[1]

    def _fold_in(self, conn: sqlite3.Connection, item_ids: list[int]) -> None:
        """Give new or changed items their vectors in the current space, if there is one."""
        space = self._current_space(conn)
        if space is not None:
            fold_in(conn, space, item_ids)

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
                self._writes += 1
                result = body(conn)
                conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError):
                    raise _operational(exc) from exc
                raise
            return result

    def _document_row(self, conn: sqlite3.Connection, document_id: int) -> sqlite3.Row:
        row: sqlite3.Row | None = conn.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents d WHERE d.id = ?",  # noqa: S608 - constant
            (document_id,),
        ).fetchone()
        if row is None:
            raise PMGSQueryError(
                "DOCUMENT_NOT_FOUND",
                f"the collection has no document {document_id}",
                {"argument": "id", "id": document_id},
            )
        return row

    def _item_record(self, conn: sqlite3.Connection, item_id: int) -> CollectionItem:
        row = conn.execute(
            f"SELECT {_ITEM_COLUMNS} FROM items i JOIN documents d ON d.id = i.document_id "  # noqa: S608
            "WHERE i.id = ?",
            (item_id,),
        ).fetchone()
        if row is None:
            raise item_missing(item_id)
        return row_record(row, CollectionItem, record_type="collection_item")


def row_record(row: sqlite3.Row, record: type[R], **fixed: str) -> R:
    """The ``record`` a row holds: each key from the column of its name, in the order the
    record declares its keys (the order the JSON carries them); ``source`` is the
    collection's, and ``fixed`` gives the keys no column holds."""
    given = {"source": SOURCE, **fixed}
    keys = record.__annotations__
    return cast(R, {key: given[key] if key in given else row[key] for key in keys})


def document_record(row: sqlite3.Row) -> CollectionDocument:
    """A row of :data:`DOCUMENT_COLUMNS` as its record."""
    return row_record(row, CollectionDocument)


def item_missing(item_id: int) -> PMGSQueryError:
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
