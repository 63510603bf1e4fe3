"""Batched inserts and the concept registry that turns codes into row ids while loading.

The builder assigns the ids of concepts, revisions and documents itself instead of asking
SQLite for ``lastrowid``: rows can then be buffered and inserted thousands at a time with
``executemany``, and a code met before its code table defines it (a concordance naming a code
no table has) can be given an id at once and inserted at the end as ``reference_only``.

Only what parent resolution and cross-file checks need is held in memory: one id per code
and scheme/edition, one revision id per concept; row contents are streamed to SQLite.
"""

from __future__ import annotations

import sqlite3
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Final, TypedDict, Unpack

if TYPE_CHECKING:
    from pmgs_build.database.insert_process import WriteProcess

__all__ = ["ConceptRegistry", "Loader", "Reservation"]

Row = tuple[object, ...]
_GROW_BY: Final = 1 << 16

_COLUMNS: Final[dict[str, tuple[str, ...]]] = {
    "source_file": (
        "id",
        "path",
        "bytes",
        "sha256",
        "data_group",
        "parser",
        "status",
        "record_count",
    ),
    "concept": ("id", "scheme", "edition", "code", "kind", "status", "source_file_id", "locator"),
    "revision": (
        "id",
        "concept_id",
        "version",
        "valid_from",
        "valid_to",
        "level",
        "sequence",
        "source_file_id",
        "locator",
    ),
    "text": (
        "revision_id",
        "language",
        "text_type",
        "line",
        "body",
        "source_file_id",
        "locator",
    ),
    "property": ("revision_id", "name", "value", "source_file_id", "locator"),
    "relation": (
        "kind",
        "from_concept_id",
        "to_concept_id",
        "from_revision_id",
        "to_revision_id",
        "sequence",
        "source_file_id",
        "locator",
    ),
    "document": ("id", "document_key", "kind", "language", "title", "source_file_id", "locator"),
    "document_text": (
        "document_id",
        "sequence_number",
        "page",
        "heading",
        "text_type",
        "body",
        "source_file_id",
        "locator",
    ),
    "document_link": ("document_id", "concept_id", "role", "sequence", "source_file_id", "locator"),
    "build_issue": ("severity", "code", "message", "source_file_id", "locator"),
    "quarantine": ("data_group", "reason", "message", "raw", "source_file_id", "locator"),
}
"""Insert columns per table. Tables whose ids nobody refers to let SQLite number the rows
(in insertion order, which is deterministic)."""


class Loader:
    """Buffers rows per table and writes them with ``executemany`` in large batches."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        batch_size: int = 5000,
        *,
        writer: WriteProcess | None = None,
    ) -> None:
        self.conn = conn
        self.batch_size = batch_size
        self.writer = writer
        """While set, statements go to this writer process instead of ``conn`` (ADR 0028)."""
        self._buffers: dict[str, list[Row]] = {table: [] for table in _COLUMNS}
        # Table and column names come from _COLUMNS above, never from input.
        self._sql = {
            table: (
                f"INSERT INTO {table} ({', '.join(columns)}) "  # noqa: S608
                f"VALUES ({', '.join('?' for _ in columns)})"
            )
            for table, columns in _COLUMNS.items()
        }
        self._next_id: dict[str, int] = {"concept": 1, "revision": 1, "document": 1}
        self.rows_written: dict[str, int] = dict.fromkeys(_COLUMNS, 0)
        # Rows per source file id (None: build_issue rows of no file), so that validation can
        # prove that none was lost or added on the way into SQLite.
        self._source_column = {
            table: columns.index("source_file_id")
            for table, columns in _COLUMNS.items()
            if "source_file_id" in columns
        }
        self.rows_by_source: dict[str, Counter[int | None]] = {
            table: Counter() for table in self._source_column
        }

    def new_id(self, table: str) -> int:
        """The next id of a table whose ids the builder assigns."""
        value = self._next_id[table]
        self._next_id[table] = value + 1
        return value

    def add(self, table: str, row: Row) -> None:
        """Queue one row (values in the order of the table's insert columns)."""
        buffer = self._buffers[table]
        buffer.append(row)
        if len(buffer) >= self.batch_size:
            self._flush(table)

    def execute(self, sql: str, params: Sequence[object] = ()) -> None:
        """Run one statement where the rows go (the writer process, if there is one)."""
        if self.writer is None:
            self.conn.execute(sql, params)
        else:
            self.writer.execute(sql, params)

    def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        """Run one statement per row where the rows go."""
        if self.writer is None:
            self.conn.executemany(sql, rows)
        else:
            self.writer.executemany(sql, rows)  # pickled at once: the caller may reuse rows

    def _flush(self, table: str) -> None:
        buffer = self._buffers[table]
        if buffer:
            self.executemany(self._sql[table], buffer)
            self.rows_written[table] += len(buffer)
            column = self._source_column.get(table)
            if column is not None:  # Counter.update over itemgetter runs in C
                self.rows_by_source[table].update(map(itemgetter(column), buffer))
            buffer.clear()

    def flush(self, *, wait: bool = True) -> None:
        """Write every queued row; ``wait``: and wait for the writer process to have written
        them, raising its first error. The parse does not wait at the end of each data group
        (ADR 0039): the writer catches up while the next group is parsed, and an error it
        met is raised at the next waiting flush (the one after the parse at the latest)."""
        for table in self._buffers:
            self._flush(table)
        if wait and self.writer is not None:
            self.writer.sync()


class Span(TypedDict, total=False):
    """Where a revision stands: hierarchy level, order and validity (all optional)."""

    level: int | None
    sequence: int | None
    valid_from: str | None
    valid_to: str | None


@dataclass(frozen=True, slots=True)
class Reservation:
    """A code referred to before (or without) being defined: what its reference-only row
    needs if no code table ever defines it."""

    scheme: str
    edition: str
    code: str
    kind: str
    source_file_id: int
    locator: str


class ConceptRegistry:
    """Concept ids by (scheme, edition, code), and which of them a code table defined.

    ``define`` inserts a canonical concept (with the id a reference already reserved, if
    any); ``reference`` returns the id of a concept whether or not it is defined yet, and
    reserves one otherwise. ``finish`` writes the reserved concepts that no table defined as
    ``reference_only``, each with its single revision (version ``''``).
    """

    def __init__(self, loader: Loader) -> None:
        self._loader = loader
        self._ids: dict[tuple[str, str], dict[str, int]] = {}
        self._reserved: dict[int, Reservation] = {}
        # Indexed by concept id: 1 = canonical; the id of the version-'' revision (0 = none).
        self._canonical = bytearray(1)
        self._base_revision = array("q", [0])
        self.reference_only_count = 0

    def _grow(self, concept_id: int) -> None:
        missing = concept_id + 1 - len(self._canonical)
        if missing > 0:
            missing = max(missing, _GROW_BY)  # amortised: ids arrive one at a time
            self._canonical.extend(bytes(missing))
            self._base_revision.extend(array("q", bytes(8 * missing)))

    def _id_of(self, scheme: str, edition: str, code: str) -> tuple[int, bool]:
        """(concept id, whether it is new) of a code: a code met for the first time gets its
        id at once, whether a table defines it now or it is only referred to."""
        scope = self._ids.get((scheme, edition))
        if scope is None:  # not setdefault: its default dict would be built on every call
            scope = self._ids[scheme, edition] = {}
        concept_id = scope.get(code)
        if concept_id is not None:
            return concept_id, False
        concept_id = self._loader.new_id("concept")
        scope[code] = concept_id
        self._grow(concept_id)
        return concept_id, True

    def lookup(self, scheme: str, edition: str, code: str) -> int | None:
        """The id of a known (defined or reserved) concept, else None."""
        return self._ids.get((scheme, edition), {}).get(code)

    def is_canonical(self, concept_id: int) -> bool:
        """True when a code table defined the concept."""
        return concept_id < len(self._canonical) and self._canonical[concept_id] == 1

    def defined(self, scheme: str, edition: str, code: str) -> int | None:
        """The id of a concept a code table defined, else None."""
        concept_id = self.lookup(scheme, edition, code)
        if concept_id is None or not self.is_canonical(concept_id):
            return None
        return concept_id

    def define(
        self, scheme: str, edition: str, code: str, kind: str, *, source_file_id: int, locator: str
    ) -> int | None:
        """Insert a canonical concept and return its id; None if it is already defined."""
        concept_id, new = self._id_of(scheme, edition, code)
        if not new:
            if self.is_canonical(concept_id):
                return None
            del self._reserved[concept_id]
        self._canonical[concept_id] = 1
        self._loader.add(
            "concept",
            (concept_id, scheme, edition, code, kind, "canonical", source_file_id, locator),
        )
        return concept_id

    def reference(
        self, scheme: str, edition: str, code: str, kind: str, *, source_file_id: int, locator: str
    ) -> int:
        """The id of a concept, reserving one (to become reference-only) if it is unknown."""
        concept_id, new = self._id_of(scheme, edition, code)
        if new:
            self._reserved[concept_id] = Reservation(
                scheme, edition, code, kind, source_file_id, locator
            )
        return concept_id

    def set_base_revision(self, concept_id: int, revision_id: int) -> None:
        """Remember the version-'' revision of a concept (texts and properties hang on it)."""
        self._grow(concept_id)
        self._base_revision[concept_id] = revision_id

    def base_revision(self, concept_id: int) -> int | None:
        """The version-'' revision of a concept, if it has one."""
        if concept_id >= len(self._base_revision):
            return None
        return self._base_revision[concept_id] or None

    def add_revision(
        self, concept_id: int, version: str, source_file_id: int, locator: str, **span: Unpack[Span]
    ) -> int:
        """Insert a revision and return its id (remembered as base when version is '')."""
        revision_id = self._loader.new_id("revision")
        self._loader.add(
            "revision",
            (
                revision_id,
                concept_id,
                version,
                span.get("valid_from"),
                span.get("valid_to"),
                span.get("level"),
                span.get("sequence"),
                source_file_id,
                locator,
            ),
        )
        if version == "":
            self.set_base_revision(concept_id, revision_id)
        return revision_id

    def pending(self) -> Sequence[Reservation]:
        """The reserved concepts no table has defined (so far)."""
        return tuple(self._reserved.values())

    def finish(self) -> int:
        """Insert every still-reserved concept as ``reference_only``; return how many."""
        for concept_id, reservation in sorted(self._reserved.items()):
            self._loader.add(
                "concept",
                (
                    concept_id,
                    reservation.scheme,
                    reservation.edition,
                    reservation.code,
                    reservation.kind,
                    "reference_only",
                    reservation.source_file_id,
                    reservation.locator,
                ),
            )
            self.add_revision(concept_id, "", reservation.source_file_id, reservation.locator)
        count = len(self._reserved)
        self.reference_only_count += count
        self._reserved.clear()
        return count
