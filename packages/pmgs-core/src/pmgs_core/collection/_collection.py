"""The user's collection: documents of their own (notes, search formulas, excerpts) beside
the read-only release, in a separate writable SQLite file (ADR 0016).

Its text is the user's, never JPO evidence: every record says ``source: "user_collection"``.
Reads and writes live in ``_reads`` and ``_writes``; the file, lock and transactions in
``_file``.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Final

from pmgs_core.collection._file import MAX_COLLECTION_ITEMS, SOURCE
from pmgs_core.collection._reads import CollectionReads
from pmgs_core.collection._vectors import MIN_TRAIN_ITEMS
from pmgs_core.collection._writes import CollectionWrites

__all__ = ["COLLECTION_FILE", "MAX_COLLECTION_ITEMS", "SOURCE", "Collection"]

COLLECTION_FILE: Final = "collection/collection.sqlite"
"""Where the collection lives below the data directory's root."""


class Collection(CollectionReads, CollectionWrites):
    """A writable collection file; open it with the file's path (created when absent).

    One instance may be shared by the threads of a server (a lock serialises its calls);
    several processes may open the same file at once (WAL, busy timeout).
    """

    @classmethod
    def in_data_dir(cls, root: str | os.PathLike[str]) -> Collection:
        """The collection of a data directory (``<root>/collection/collection.sqlite``)."""
        return cls(Path(root) / COLLECTION_FILE)

    def _before_search(self) -> None:
        """Train the space first (ADR 0026) when none exists yet, or when the collection has
        doubled since it was trained (items folded in meanwhile use the older vocabulary);
        ``lsa_retrain`` does it on demand."""
        if self.vectors_available and self._training_due():
            self.lsa_retrain()

    def _training_due(self) -> bool:
        def body(conn: sqlite3.Connection) -> bool:
            items = int(conn.execute("SELECT count(*) FROM items").fetchone()[0])
            row = conn.execute("SELECT trained_items FROM lsa_model WHERE id = 1").fetchone()
            trained = int(row[0]) if row else 0
            return items >= MIN_TRAIN_ITEMS and items >= 2 * trained

        return self._read(body)
