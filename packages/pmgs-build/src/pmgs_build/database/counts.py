"""``metadata.build_counts``: what the builder wrote, recorded so that validation can recount.

The builder writes this record before the logical digest; the validation checks compare
the database with it. Which tables are counted follows from the schema itself
(:data:`pmgs_core.building.TABLES` and its columns), so a table added to the schema is counted
without anybody remembering to list it here.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from typing import Final

from pmgs_core.building import TABLES, TEXT_RANGES_KEY, create_schema, recorded_text_ranges

__all__ = [
    "BUILD_COUNTS_KEY",
    "COUNTED_TABLES",
    "SOURCE_TABLES",
    "encode_build_counts",
    "recorded_metadata",
]

BUILD_COUNTS_KEY: Final = "build_counts"
"""The metadata key under which the builder records what it wrote (see
:func:`encode_build_counts`)."""

COUNTED_TABLES: Final = tuple(table for table in TABLES if table != "metadata")
"""Tables whose row count the builder records; ``metadata`` holds the record itself and the
digest, so it cannot count itself."""


def _tables_with_column(column: str) -> tuple[str, ...]:
    """The tables of :data:`pmgs_core.building.TABLES` (in that order) whose schema has ``column``,
    read from an in-memory database made by :func:`pmgs_core.building.create_schema`."""
    with closing(sqlite3.connect(":memory:")) as conn:
        create_schema(conn)
        return tuple(
            table
            for table in TABLES
            if any(row[1] == column for row in conn.execute(f"PRAGMA table_info({table})"))
        )


SOURCE_TABLES: Final = _tables_with_column("source_file_id")
"""Tables whose rows carry a ``source_file_id``, counted per source file."""


def encode_build_counts(
    tables: Mapping[str, int],
    groups: Mapping[str, Mapping[str, int]],
    records: Mapping[int, int],
    rows: Mapping[str, Mapping[int, int]],
) -> str:
    """The ``metadata.build_counts`` value: what the builder wrote, as compact, sorted JSON.

    ``tables``: rows per table of :data:`COUNTED_TABLES`; ``groups``: ``files``, ``bytes``,
    ``records``, ``skipped`` per data group (the build report's figures); ``records``:
    ``record_count`` per source file id, every file included; ``rows``: per table of
    :data:`SOURCE_TABLES`, rows per source file id, only ids with rows. The value is part of
    the logical digest, so it holds nothing that differs between two builds of one package.
    """
    value = {
        "tables": {table: int(tables.get(table, 0)) for table in COUNTED_TABLES},
        "groups": {group: dict(counts) for group, counts in groups.items()},
        "records": {str(file_id): int(count) for file_id, count in sorted(records.items())},
        "rows": {
            table: {
                str(file_id): int(count)
                for file_id, count in sorted(rows.get(table, {}).items())
                if count
            }
            for table in SOURCE_TABLES
        },
    }
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def recorded_metadata(conn: sqlite3.Connection, counts: str) -> list[tuple[str, str]]:
    """The metadata rows the builder writes once every row is in, before the digest that
    covers them: ``build_counts`` and the schemes' text ranges a search would otherwise scan
    for in every process (``text_ranges``, ADR 0041)."""
    return [(BUILD_COUNTS_KEY, counts), (TEXT_RANGES_KEY, recorded_text_ranges(conn))]
