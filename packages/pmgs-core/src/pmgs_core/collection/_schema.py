"""The collection's SQLite file: how it is opened, created and migrated forward (ADR 0016).

The one writable database of pmgs, apart from the release. Several processes share it: WAL
(readers never wait), a busy timeout for writers, one ``BEGIN IMMEDIATE`` transaction a
write. Tables come from sqlite-utils; :data:`MIGRATIONS` steps ``PRAGMA user_version`` forward.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Final

import sqlite_utils

from pmgs_core.errors import PMGSQueryError

__all__ = ["COLLECTION_SCHEMA_VERSION", "MIGRATIONS", "connect", "restore_index"]

BUSY_TIMEOUT_MS: Final = 10_000
"""How long a writer waits for another writer before ``COLLECTION_BUSY``."""


def _create_v1(db: sqlite_utils.Database) -> None:
    """Documents, their items (chunks), the FTS5 index over folded item text, one status row."""
    db.table("documents").create(
        {
            "id": int,
            "path": str,
            "mime": str,
            "category": str,
            "content_sha256": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"path", "mime", "created_at", "updated_at"},
        if_not_exists=True,
    )
    db.table("documents").create_index(["path"], unique=True, if_not_exists=True)
    db.table("documents").create_index(["category"], if_not_exists=True)
    db.table("items").create(
        {
            "id": int,
            "document_id": int,
            "position": int,
            "content": str,
            "folded": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        foreign_keys=[("document_id", "documents", "id")],
        not_null={"document_id", "position", "content", "folded", "created_at", "updated_at"},
        if_not_exists=True,
    )
    db.table("items").create_index(["document_id", "position"], if_not_exists=True)
    if not db.table("items_fts").exists():
        _enable_fts(db)
    db.table("indexing_state").create(
        {
            "id": int,
            "task": str,
            "done": int,
            "total": int,
            "started_at": str,
            "pid": int,
        },
        pk="id",
        if_not_exists=True,
    )


def _enable_fts(db: sqlite_utils.Database) -> None:
    # trigram: any substring of 3+ characters is found, as in the release database; the
    # triggers keep the index in step with every insert, update and delete.
    db.table("items").enable_fts(["folded"], create_triggers=True, tokenize="trigram", replace=True)


def restore_index(conn: sqlite3.Connection) -> None:
    """Recreate the FTS5 table or its triggers if either is missing or differs (a no-op on a
    healthy file); sqlite-utils compares the existing definitions with the wanted ones."""
    _enable_fts(sqlite_utils.Database(conn, execute_plugins=False))


def _create_v2(db: sqlite_utils.Database) -> None:
    """The LSA space and one vector per item (ADR 0026); triggers drop an item's vector when
    its text changes or it goes, so a stale vector never answers (with or without numpy)."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS lsa_model (id INTEGER PRIMARY KEY CHECK (id = 1), "
        "generation INTEGER NOT NULL, dimensions INTEGER NOT NULL, vocabulary TEXT NOT NULL, "
        "idf BLOB NOT NULL, components BLOB NOT NULL, trained_items INTEGER NOT NULL, "
        "trained_at TEXT NOT NULL)"
    )
    db.execute(
        "CREATE TABLE IF NOT EXISTS item_vectors (item_id INTEGER PRIMARY KEY "
        "REFERENCES items(id) ON DELETE CASCADE, vector BLOB NOT NULL)"
    )
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS items_vector_ad AFTER DELETE ON items BEGIN "
        "DELETE FROM item_vectors WHERE item_id = old.id; END"
    )
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS items_vector_au AFTER UPDATE OF folded ON items BEGIN "
        "DELETE FROM item_vectors WHERE item_id = old.id; END"
    )


def _merge_twins_v3(db: sqlite_utils.Database) -> None:
    """One note per file (issue 41): ``pmgs notes add FILE`` used to key a note by the file's
    bare name, ``pmgs notes watch`` by its absolute path, so one file could be two notes (the
    stale one ranking first). ``notes add`` now keys by the absolute path too; a bare-name note
    whose name ends exactly one absolute-path note is that file's stale twin and goes (the
    watched note stays: the watch keeps it current). A bare name that ends several paths, or
    none, is left alone: which file it was cannot be told."""
    twins = [
        int(row[0])
        for row in db.execute(
            "SELECT b.id FROM documents b WHERE instr(b.path, '/') = 0 AND ("
            "SELECT count(*) FROM documents a WHERE length(a.path) > length(b.path) "
            "AND substr(a.path, 1, 1) = '/' "
            "AND substr(a.path, length(a.path) - length(b.path)) = '/' || b.path) = 1"
        ).fetchall()
    ]
    for document_id in twins:
        db.execute("DELETE FROM items WHERE document_id = ?", [document_id])
        db.execute("DELETE FROM documents WHERE id = ?", [document_id])


MIGRATIONS: Final[tuple[Callable[[sqlite_utils.Database], None], ...]] = (
    _create_v1,
    _create_v2,
    _merge_twins_v3,
)
"""Step ``i`` takes the schema from version ``i`` to ``i + 1``."""
COLLECTION_SCHEMA_VERSION: Final = len(MIGRATIONS)


def _migrate(conn: sqlite3.Connection) -> None:
    db = sqlite_utils.Database(conn, execute_plugins=False)
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > COLLECTION_SCHEMA_VERSION:
        raise PMGSQueryError(
            "COLLECTION_ERROR",
            f"the collection was written by a newer pmgs (schema {version}); upgrade pmgs",
            {"schema_version": version, "supported": COLLECTION_SCHEMA_VERSION},
        )
    while version < COLLECTION_SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read inside the lock: another process may have migrated meanwhile.
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version < COLLECTION_SCHEMA_VERSION:
                MIGRATIONS[version](db)
                version += 1
                conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if absent) and migrate the collection at ``path``.

    Autocommit mode: the collection's own code opens every transaction explicitly.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        raise PMGSQueryError(
            "COLLECTION_ERROR", "the collection file cannot be opened or created"
        ) from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        _migrate(conn)
    except sqlite3.OperationalError as exc:
        conn.close()
        if "locked" in str(exc) or "busy" in str(exc):
            raise PMGSQueryError(
                "COLLECTION_BUSY", "the collection is busy with another writer; try again"
            ) from exc
        raise PMGSQueryError("COLLECTION_ERROR", "the collection file is not usable") from exc
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise PMGSQueryError("COLLECTION_ERROR", "the collection file is not usable") from exc
    except BaseException:
        conn.close()
        raise
    return conn
