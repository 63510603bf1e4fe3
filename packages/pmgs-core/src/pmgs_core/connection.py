"""A SQLite connection shared by the threads of a server: one re-entrant lock, closed once.

The release store and the user's collection both hold one connection that every call uses
under a lock (ADRs 0004, 0016); closing and ``with`` blocks follow the same rule for both.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Self

__all__ = ["LockedConnection"]


class LockedConnection:
    """Owns ``_conn`` and ``_lock``; later calls on a closed one fail with ``STORE_CLOSED``."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._conn: sqlite3.Connection | None = connection
        self._lock = threading.RLock()

    def close(self) -> None:
        """Close the connection; later queries fail with ``STORE_CLOSED``."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
