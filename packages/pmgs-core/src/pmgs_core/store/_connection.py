"""Opening a database read-only, and the plumbing every query of the store goes through.

The database is opened with the SQLite URI ``mode=ro`` and ``PRAGMA query_only``; its schema
version and, when a pointer named it, the pointer's metadata are checked before the first
query. Queries run one at a time on the one connection under a lock, and every answer is
checked against the response size limit before it is returned (ADR 0004).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, TypeVar

from pmgs_core.connection import LockedConnection
from pmgs_core.datadir import (
    CurrentPointer,
    ResolvedDatabase,
    check_pointer_metadata,
    resolve_database,
)
from pmgs_core.errors import PMGSQueryError
from pmgs_core.records import Categories, ReleaseInfo, ReleaseRef, SourceRef, ensure_response_size
from pmgs_core.schema import SCHEMA_VERSION

if TYPE_CHECKING:
    from pmgs_core.search import SearchReader

__all__ = ["StoreConnection"]

T = TypeVar("T")


class StoreConnection(LockedConnection):
    """The connection, the release it holds and the plumbing every query goes through.

    The capability mixins of :class:`pmgs_core.PMGSStore` derive from this class; they read
    rows only through :meth:`_rows`, :meth:`_one` and :meth:`_stream` and answer only under
    :meth:`_locked`, so the read-only, error-safety and size rules hold for every method.
    """

    def __init__(self, connection: sqlite3.Connection, resolved: ResolvedDatabase) -> None:
        """Use :meth:`open`; this constructor trusts that the connection is checked."""
        super().__init__(connection)
        self._resolved = resolved
        self._sources: dict[int, tuple[str, str]] = {}
        self._metadata = self._read_metadata(connection)
        release = connection.execute(
            "SELECT release_id, reference_date, source_manifest_sha256, attribution FROM release"
        ).fetchall()
        if len(release) != 1:
            raise PMGSQueryError("DATABASE_INVALID", "the database does not hold one release")
        self._release_id, self._reference_date, self._source_sha256, self._attribution = (
            str(release[0][0]),
            str(release[0][1]),
            str(release[0][2]),
            str(release[0][3]),
        )
        self._counts_cache: ReleaseInfo | None = None
        self._search_memo: dict[str, Any] = {}
        """What searches read once per store: the release fixes it (ADR 0036)."""
        self._categories_cache: Categories | None = None

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        data_dir: str | os.PathLike[str] | None = None,
    ) -> Self:
        """Find the database in the contract's order and open it read-only.

        Order: ``path``; ``data_dir/state/current.json``; ``$PMGS_REFERENCE_DB``; the OS default
        data directory's pointer; its legacy ``data/current.sqlite`` only without a pointer.
        A pointer must agree with the database's metadata (release, source SHA-256, schema
        version); a schema version this code does not know is refused.
        """
        resolved = resolve_database(path, data_dir=data_dir)
        return cls._open_resolved(resolved)

    @classmethod
    def _open_resolved(cls, resolved: ResolvedDatabase) -> Self:
        """Open read-only and refuse a schema version or pointer this code cannot trust."""
        uri = resolved.path.resolve().as_uri() + "?mode=ro"
        try:
            connection = sqlite3.connect(
                uri, uri=True, check_same_thread=False, isolation_level=None
            )
        except sqlite3.Error:
            raise PMGSQueryError("DATABASE_NOT_FOUND", "the database cannot be opened") from None
        try:
            connection.execute("PRAGMA query_only = 1")
            user_version = connection.execute("PRAGMA user_version").fetchone()[0]
            if user_version != SCHEMA_VERSION:
                raise PMGSQueryError(
                    "UNSUPPORTED_SCHEMA_VERSION",
                    f"the database has schema version {user_version}; this pmgs-core reads "
                    f"version {SCHEMA_VERSION}. Rebuild the database or upgrade pmgs-core",
                    {"found": user_version, "supported": [SCHEMA_VERSION]},
                )
            store = cls(connection, resolved)
            if store._metadata.get("schema_version") != str(SCHEMA_VERSION):
                raise PMGSQueryError(
                    "UNSUPPORTED_SCHEMA_VERSION",
                    "the database metadata names a schema version this pmgs-core cannot read",
                    {"supported": [SCHEMA_VERSION]},
                )
            if resolved.pointer is not None:
                check_pointer_metadata(resolved.pointer, store._metadata)
        except PMGSQueryError:
            connection.close()
            raise
        except sqlite3.Error:
            connection.close()
            raise PMGSQueryError(
                "DATABASE_INVALID", "the file is not a readable pmgs database"
            ) from None
        return store

    @staticmethod
    def _read_metadata(connection: sqlite3.Connection) -> dict[str, str]:
        """The metadata table as a dict; it is small and read once at open."""
        return {
            str(key): str(value)
            for key, value in connection.execute("SELECT key, value FROM metadata")
        }

    @property
    def database_path(self) -> Path:
        """The database file (for diagnostics on this machine; never put it in a response)."""
        return self._resolved.path

    @property
    def pointer(self) -> CurrentPointer | None:
        """The data directory pointer that named the database, if one did."""
        return self._resolved.pointer

    # ------------------------------------------------------------------ plumbing

    def _connection(self) -> sqlite3.Connection:
        """Read ``_conn`` at every call: ``close`` may have run since the last query."""
        if self._conn is None:
            raise PMGSQueryError("STORE_CLOSED", "the store has been closed")
        return self._conn

    def _rows(
        self, sql: str, params: Sequence[object] | Mapping[str, object] = ()
    ) -> list[tuple[Any, ...]]:
        """All rows; a SQLite failure becomes ``DATABASE_ERROR`` without its text."""
        try:
            return self._connection().execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise PMGSQueryError(
                "DATABASE_ERROR", "the database could not answer the query"
            ) from error

    def _one(self, sql: str, params: Sequence[object] = ()) -> tuple[Any, ...] | None:
        """The first row, for counts and single-row selects."""
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    def _stream(self, sql: str, params: Sequence[object]) -> Iterator[tuple[Any, ...]]:
        """Rows one at a time, so that a caller that stops early stops SQLite too.

        Not in batches: SQLite computes every row a batch asks for, and a search page that
        needs a dozen candidates of a statement paid for 64 (ADR 0036).
        """
        try:
            cursor = self._connection().execute(sql, params)
            yield from cursor
            cursor.close()
        except sqlite3.Error as error:
            raise PMGSQueryError(
                "DATABASE_ERROR", "the database could not answer the query"
            ) from error

    def _locked(self, call: Callable[[], T]) -> T:
        """Run one query under the lock, then refuse an answer over the size limit."""
        with self._lock:
            result = self._in_snapshot(call)
        ensure_response_size(result)
        return result

    def _in_snapshot(self, call: Callable[[], T]) -> T:
        """Run a call's statements in one read transaction.

        The answer is read from one snapshot, and SQLite takes its file lock (and checks the
        file for changes) once per call instead of once per statement: about 6 µs of the
        10 µs a small indexed statement costs outside a transaction.
        """
        connection = self._connection()
        if connection.in_transaction:
            return call()
        self._rows("BEGIN")
        try:
            return call()
        finally:
            # A read transaction: nothing to write, and pending reads survive its end.
            self._rows("COMMIT")

    def _check_release(self, release: object) -> None:
        """A database holds one release; the argument exists for the contract's sake."""
        if release in {"current", self._release_id}:
            return
        raise PMGSQueryError(
            "RELEASE_NOT_FOUND",
            "this database holds one release; use 'current' or its release id",
            {"available": ["current", self._release_id]},
        )

    def _release_ref(self) -> ReleaseRef:
        """A fresh copy per record, so that no two records share a mutable dict."""
        return {"release_id": self._release_id, "reference_date": self._reference_date}

    def _source(self, file_id: int, locator: str) -> SourceRef:
        """A source reference; file paths are cached per store (a handful of files)."""
        cached = self._sources.get(file_id)
        if cached is None:
            row = self._one("SELECT path, sha256 FROM source_file WHERE id = ?", (file_id,))
            cached = (str(row[0]), str(row[1])) if row else ("", "")
            self._sources[file_id] = cached
        return {
            "file": cached[0],
            "file_sha256": cached[1],
            "locator": locator,
            "attribution": self._attribution,
        }

    def _search_reader(self) -> SearchReader:
        """What the search package may use of this store: rows, sources, release stamps."""
        from pmgs_core.search import SearchReader

        return SearchReader(
            stream=self._stream,
            source=self._source,
            release=self._release_ref,
            attribution=self._attribution,
            memo=self._search_memo,
        )
