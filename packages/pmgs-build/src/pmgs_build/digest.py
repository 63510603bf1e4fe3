"""The logical digest: a hash of what a database says, not of how SQLite laid it out.

Two builds of the same package must be recognisably the same database even though page
layout, free lists and FTS segment merges may differ. So the digest covers the rows of every
content table (``pmgs_core.TABLES`` order, rows in primary-key order, each row as SQL
literals so that types and NULLs count) and nothing volatile: the FTS tables are derived, and
the ``logical_digest`` metadata key cannot contain itself.
"""

from __future__ import annotations

import hashlib
import sqlite3
from typing import Final

from pmgs_core import TABLES

__all__ = ["DIGEST_EXCLUDED_METADATA", "logical_digest"]

DIGEST_EXCLUDED_METADATA: Final = ("logical_digest",)


def _primary_key(conn: sqlite3.Connection, table: str) -> tuple[list[str], list[str]]:
    info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    columns = [str(row[1]) for row in info]
    key = [str(row[1]) for row in sorted((r for r in info if r[5]), key=lambda r: int(r[5]))]
    return columns, key or ["rowid"]


def logical_digest(conn: sqlite3.Connection) -> str:
    """SHA-256 (hex) over the content tables of the database behind ``conn``.

    Each row is rendered by SQLite itself as SQL literals (``quote()``: integers bare, text
    in single quotes with quotes doubled, ``NULL``), comma-separated, one row per line. The
    rendering is unambiguous, independent of the Python version, and keeps the per-row work
    in C, which matters for millions of rows.
    """
    digest = hashlib.sha256()
    for table in TABLES:
        columns, key = _primary_key(conn, table)
        digest.update(f"{table}({','.join(columns)})\n".encode())
        rendered = " || ',' || ".join(f"quote({column})" for column in columns)
        where = ""
        params: tuple[str, ...] = ()
        if table == "metadata":
            where = f" WHERE key NOT IN ({', '.join('?' for _ in DIGEST_EXCLUDED_METADATA)})"
            params = DIGEST_EXCLUDED_METADATA
        cursor = conn.execute(
            f"SELECT {rendered} || char(10) FROM {table}{where} "  # noqa: S608 - schema names
            f"ORDER BY {', '.join(key)}",
            params,
        )
        while rows := cursor.fetchmany(20_000):
            digest.update("".join(row[0] for row in rows).encode("utf-8"))
    return digest.hexdigest()
