"""The user's collection: documents of their own (notes, search formulas, excerpts) beside
the read-only release, in a separate writable SQLite file (ADR 0016).

Its text is the user's, never JPO evidence: every record says ``source: "user_collection"``.
Reads and writes live in ``_reads`` and ``_writes``; the file, lock and transactions in
``_file``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from pmgs_core.collection._file import MAX_COLLECTION_ITEMS, SOURCE
from pmgs_core.collection._reads import CollectionReads
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
