"""The logical digest: a hash of what a database says, not of how SQLite laid it out.

Two builds of the same package must be recognisably the same database even though page
layout, free lists and FTS segment merges may differ. So the digest covers the rows of every
content table (``pmgs_core.building.TABLES`` order, rows in primary-key order, each row as a JSON
array so that types and NULLs count) and nothing volatile: the FTS tables are derived, and
the ``logical_digest`` metadata key cannot contain itself.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from pmgs_core.building import TABLES

__all__ = ["DIGEST_EXCLUDED_METADATA", "file_sha256", "logical_digest", "metadata_rows"]

DIGEST_EXCLUDED_METADATA: Final = ("logical_digest",)
_BATCH: Final = 20_000


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read in 1 MiB blocks (databases of the long profiles are large)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _primary_key(conn: sqlite3.Connection, table: str) -> tuple[list[str], list[str]]:
    info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    columns = [str(row[1]) for row in info]
    key = [str(row[1]) for row in sorted((r for r in info if r[5]), key=lambda r: int(r[5]))]
    return columns, key or ["rowid"]


def metadata_rows(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """The ``metadata`` rows the digest covers, in its order (by key)."""
    rows = conn.execute(
        "SELECT key, value FROM metadata WHERE key NOT IN "  # noqa: S608 - constant names
        f"({', '.join('?' for _ in DIGEST_EXCLUDED_METADATA)}) ORDER BY key",
        DIGEST_EXCLUDED_METADATA,
    ).fetchall()
    return [(str(key), str(value)) for key, value in rows]


def logical_digest(
    conn: sqlite3.Connection, *, metadata: Sequence[tuple[str, str]] | None = None
) -> str:
    """SHA-256 (hex) over the content tables of the database behind ``conn``.

    Per table: ``table(col,...)`` and a newline, then all rows as one JSON array of arrays
    without its outer brackets (``[1,"a",null],[2,"b",0]``), then a newline. JSON keeps
    types and NULLs apart and is the same in every Python version (``ensure_ascii=False``
    escapes only quotes, backslashes and control characters). Rows are encoded a batch at a
    time by the C encoder; batches are joined with the same comma the whole array would
    have, so the batch size does not change the digest.

    ``metadata``: the rows of that table as they will be (what :func:`metadata_rows` will
    return), for a digest taken from a copy made before the last of them were written
    (ADR 0028); the caller checks them against the finished table.
    """
    encode = json.JSONEncoder(
        ensure_ascii=False, separators=(",", ":"), check_circular=False
    ).encode
    digest = hashlib.sha256()
    for table in TABLES:
        columns, key = _primary_key(conn, table)
        digest.update(f"{table}({','.join(columns)})\n".encode())
        if table == "metadata" and metadata is not None:
            given = sorted(row for row in metadata if row[0] not in DIGEST_EXCLUDED_METADATA)
            digest.update(encode([list(row) for row in given])[1:-1].encode("utf-8"))
            digest.update(b"\n")
            continue
        where = ""
        params: tuple[str, ...] = ()
        if table == "metadata":
            where = f" WHERE key NOT IN ({', '.join('?' for _ in DIGEST_EXCLUDED_METADATA)})"
            params = DIGEST_EXCLUDED_METADATA
        cursor = conn.execute(
            f"SELECT {', '.join(columns)} FROM {table}{where} "  # noqa: S608 - schema names
            f"ORDER BY {', '.join(key)}",
            params,
        )
        separator = ""
        while rows := cursor.fetchmany(_BATCH):
            digest.update((separator + encode(rows)[1:-1]).encode("utf-8"))
            separator = ","
        digest.update(b"\n")
    return digest.hexdigest()
