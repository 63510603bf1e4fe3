"""The SQLite schema of a pmgs reference database, owned by the store and used by the builder.

The store is the tables' only reader, so the schema lives beside it and the store refuses a
``user_version`` it does not know. Every package row carries its lineage (``source_file_id``
and ``locator``). Why the tables are cut this way: ADR 0002.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import Final

# The folding and bigram cutting live in pmgs_core.folding (a leaf module); the
# names stay importable from here because the builder and older callers import them so.
from pmgs_core.folding import (
    bigram_tokens,
    fold_for_search,
    index_bigrams,
    is_indexed_bigram,
)

__all__ = [
    "DOCUMENT_KINDS",
    "IPC_EDITIONS",
    "ISSUE_SEVERITIES",
    "RECORD_STATUSES",
    "RELATION_KINDS",
    "SCHEMA_VERSION",
    "SCHEMES",
    "SEARCH_CHUNK_ROWS",
    "SOURCE_STATUSES",
    "TABLES",
    "bigram_tokens",
    "chunk_bigrams",
    "create_indexes",
    "create_schema",
    "fold_for_search",
    "is_indexed_bigram",
    "rebuild_search_indexes",
    "search_chunk_rows",
    "search_index_chunks",
]

SCHEMA_VERSION: Final = 3
"""Stored in ``PRAGMA user_version`` and ``metadata.schema_version``; bump on any change."""

SCHEMES: Final = ("fi", "fterm", "ipc")
IPC_EDITIONS: Final = ("8U", "8B", "7", "7E", "6", "5", "4")
"""IPC editions in the order a lookup without an edition tries them (the contract's priority)."""

RECORD_STATUSES: Final = ("canonical", "reference_only")
"""``canonical``: defined by a code table of the package. ``reference_only``: seen only in a
concordance, an explanation or a revision document; kept so that links resolve, never listed
or counted as a current code, never searchable."""

RELATION_KINDS: Final = ("parent", "theme", "concordance", "amended_to")
DOCUMENT_KINDS: Final = (
    "fi_handbook",
    "fi_revision",
    "fterm_explanation",
    "fterm_additional_code",
    "ipc_revision",
    "ipc_definition",
    "judge",
    "quarantine",
)
"""``quarantine``: one document per data group holding the raw text of its quarantined
records (one segment each, with its source and locator), so that what the package said stays
findable as evidence although it is not answered as a classification."""
SOURCE_STATUSES: Final = ("parsed", "retained", "failed")
ISSUE_SEVERITIES: Final = ("error", "warning")

_SOURCED: Final = """source_file_id INTEGER NOT NULL REFERENCES source_file(id),
    locator        TEXT NOT NULL"""
"""Where a row was read: the file and the place in it. The tables of codes, texts, relations
and documents end with these; ``build_issue`` and ``quarantine`` spell their own, nullable,
since a row there may concern no one file."""

_TABLES: Final = f"""
CREATE TABLE metadata (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE release (
    release_id             TEXT PRIMARY KEY,
    reference_date         TEXT NOT NULL,          -- ISO date, the package's 基準日
    source_manifest_sha256 TEXT NOT NULL,
    attribution            TEXT NOT NULL           -- the COPYRGHT line, verbatim
);

CREATE TABLE source_file (
    id           INTEGER PRIMARY KEY,
    path         TEXT NOT NULL UNIQUE,             -- relative, '/'-separated, below the release dir
    bytes        INTEGER NOT NULL,
    sha256       TEXT NOT NULL,
    data_group   TEXT NOT NULL,                    -- 'FI/FI', 'FTERM/FTERM_E', 'COPYRGHT', ...
    parser       TEXT,                             -- adapter name; NULL when retained unparsed
    status       TEXT NOT NULL CHECK (status IN ('parsed', 'retained', 'failed')),
    record_count INTEGER NOT NULL DEFAULT 0        -- logical rows / elements / pages read
);

CREATE TABLE concept (
    id             INTEGER PRIMARY KEY,
    scheme         TEXT NOT NULL CHECK (scheme IN ('fi', 'fterm', 'ipc')),
    edition        TEXT NOT NULL DEFAULT ''        -- '' for fi and fterm; '8U', '7E', ... for ipc
                   CHECK ((scheme = 'ipc') = (edition <> '')),
    code           TEXT NOT NULL,                  -- canonical J-PlatPat notation
    kind           TEXT NOT NULL,                  -- section..subgroup, facet, theme, term, ...
    status         TEXT NOT NULL CHECK (status IN ('canonical', 'reference_only')),
    {_SOURCED},
    UNIQUE (scheme, edition, code)
);

CREATE TABLE revision (
    id             INTEGER PRIMARY KEY,
    concept_id     INTEGER NOT NULL REFERENCES concept(id),
    version        TEXT NOT NULL DEFAULT '',       -- IPC version '2006.01', else ''
    valid_from     TEXT,                           -- ISO date; NULL = no lower bound given
    valid_to       TEXT,                           -- ISO date; NULL = open ('99991231' in 8U)
    level          INTEGER,                        -- hierarchy level / depth as given by the source
    sequence       INTEGER,                        -- structural order within its scheme+edition
    {_SOURCED},
    UNIQUE (concept_id, version)
);

CREATE TABLE text (
    id             INTEGER PRIMARY KEY,
    revision_id    INTEGER NOT NULL REFERENCES revision(id),
    language       TEXT NOT NULL CHECK (language IN ('ja', 'en')),
    text_type      TEXT NOT NULL,                  -- 'title', 'label', 'remarks', source code
    line           INTEGER NOT NULL,               -- the source's text line sequence
    body           TEXT NOT NULL,
    {_SOURCED}
);

CREATE TABLE property (
    id             INTEGER PRIMARY KEY,
    revision_id    INTEGER NOT NULL REFERENCES revision(id),
    name           TEXT NOT NULL,                  -- 'fi_coverage', 'marker', 'flag', ...
    value          TEXT NOT NULL,
    {_SOURCED}
);

CREATE TABLE relation (
    id               INTEGER PRIMARY KEY,
    kind             TEXT NOT NULL CHECK (kind IN ('parent', 'theme', 'concordance', 'amended_to')),
    from_concept_id  INTEGER NOT NULL REFERENCES concept(id),
    to_concept_id    INTEGER NOT NULL REFERENCES concept(id),
    from_revision_id INTEGER REFERENCES revision(id),   -- set for revision-to-revision edges (IPC)
    to_revision_id   INTEGER REFERENCES revision(id),
    sequence         INTEGER NOT NULL DEFAULT 0,        -- stable order among siblings
    {_SOURCED}
);

CREATE TABLE document (
    id             INTEGER PRIMARY KEY,
    document_key   TEXT NOT NULL UNIQUE,           -- public, stable id: 'ipc_definition:G06F3/048'
    kind           TEXT NOT NULL CHECK (kind IN (
                       'fi_handbook', 'fi_revision', 'fterm_explanation',
                       'fterm_additional_code', 'ipc_revision', 'ipc_definition', 'judge',
                       'quarantine')),
    language       TEXT CHECK (language IN ('ja', 'en')),
    title          TEXT NOT NULL,
    {_SOURCED}
);

CREATE TABLE document_text (
    id              INTEGER PRIMARY KEY,
    document_id     INTEGER NOT NULL REFERENCES document(id),
    sequence_number INTEGER NOT NULL CHECK (sequence_number >= 1),  -- the 1-based 'section'
    page            INTEGER CHECK (page >= 1),     -- PDF page, as in the file (never renumbered)
    heading         TEXT,                          -- the code or title the segment is about
    text_type       TEXT,
    body            TEXT NOT NULL,
    {_SOURCED},
    UNIQUE (document_id, sequence_number)
);

CREATE TABLE document_link (
    id             INTEGER PRIMARY KEY,
    document_id    INTEGER NOT NULL REFERENCES document(id),
    concept_id     INTEGER NOT NULL REFERENCES concept(id),
    role           TEXT NOT NULL CHECK (role IN ('subject', 'mentions')),
    sequence       INTEGER NOT NULL DEFAULT 0,
    {_SOURCED}
);

CREATE TABLE build_issue (
    id             INTEGER PRIMARY KEY,
    severity       TEXT NOT NULL CHECK (severity IN ('error', 'warning')),
    code           TEXT NOT NULL,                  -- stable, e.g. 'FI_COLUMN_COUNT'
    message        TEXT NOT NULL,
    source_file_id INTEGER REFERENCES source_file(id),
    locator        TEXT
);

-- Records the build could not read with certainty (ADR 0009): kept, counted, never answered
-- as a classification. raw: the cells as a JSON array (CSV), the element or row text (XML,
-- HTML), '' for a file that could not be decoded at all.
CREATE TABLE quarantine (
    id             INTEGER PRIMARY KEY,
    data_group     TEXT NOT NULL,
    reason         TEXT NOT NULL,                  -- the issue code, e.g. 'CODE_INVALID'
    message        TEXT NOT NULL,
    raw            TEXT NOT NULL,
    source_file_id INTEGER REFERENCES source_file(id),
    locator        TEXT NOT NULL                   -- 'row:12', 'table-row:3', or 'file'
);

-- Only texts of canonical concepts are searchable; the FTS tables index these views, so that
-- 'rebuild' and 'integrity-check' agree with what search may return.
CREATE VIEW searchable_text AS
    SELECT t.id AS id, t.body AS body
    FROM text AS t
    JOIN revision AS r ON r.id = t.revision_id
    JOIN concept AS c ON c.id = r.concept_id
    WHERE c.status = 'canonical';

-- 3+ character terms: trigram over the text itself (external content, nothing stored twice).
-- detail=none: row membership only, no positions (a third of the size); a term is asked as
-- the AND of its trigrams and the store's folded substring check makes the answer exact.
CREATE VIRTUAL TABLE text_fts USING fts5(
    body, content='searchable_text', content_rowid='id', tokenize='trigram', detail='none');
CREATE VIRTUAL TABLE document_text_fts USING fts5(
    body, content='document_text', content_rowid='id', tokenize='trigram', detail='none');

-- 2-character terms: contentless, one token per distinct character bigram of a row (see
-- bigram_tokens); the ascii tokenizer keeps any non-ASCII pair as one token and folds ASCII
-- case. detail=none keeps only row membership, which is all a bigram test needs.
CREATE VIRTUAL TABLE text_bigram USING fts5(
    grams, content='', columnsize=0, detail='none', tokenize='ascii');
CREATE VIRTUAL TABLE document_text_bigram USING fts5(
    grams, content='', columnsize=0, detail='none', tokenize='ascii');
"""  # noqa: S608 - its one substitution is _SOURCED, a constant

_INDEXES: Final = """
CREATE INDEX revision_concept ON revision (concept_id, valid_from);
CREATE INDEX revision_order ON revision (sequence);
CREATE INDEX text_revision ON text (revision_id, language, line);
CREATE INDEX property_revision ON property (revision_id, name);
CREATE INDEX relation_from ON relation (from_concept_id, kind, sequence);
CREATE INDEX relation_to ON relation (to_concept_id, kind, sequence);
CREATE INDEX document_kind ON document (kind, id);
CREATE INDEX document_text_page ON document_text (document_id, page, sequence_number);
-- lookup's scope notes: the segments of a linked document headed by the code itself.
CREATE INDEX document_text_heading ON document_text (document_id, heading);
CREATE INDEX document_link_concept ON document_link (concept_id, document_id);
CREATE INDEX document_link_document ON document_link (document_id, sequence);
CREATE INDEX build_issue_code ON build_issue (code);
CREATE INDEX quarantine_group ON quarantine (data_group, reason);
"""

TABLES: Final = (
    "metadata",
    "release",
    "source_file",
    "concept",
    "revision",
    "text",
    "property",
    "relation",
    "document",
    "document_text",
    "document_link",
    "build_issue",
    "quarantine",
)
"""Every content table, in the order used for the logical digest and counts."""


def create_schema(conn: sqlite3.Connection) -> None:
    """Create the tables (no secondary indexes: bulk loads run faster without them)."""
    conn.executescript(_TABLES)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def create_indexes(conn: sqlite3.Connection) -> None:
    """Create the secondary indexes, after the bulk load."""
    conn.executescript(_INDEXES)


_SEARCH_SOURCES: Final = (
    (
        "text_fts",
        "text_bigram",
        # searchable_text, spelled so that SQLite walks text in id order: FTS5 flushes its
        # pending terms whenever a rowid is smaller than the last one, and the view may be
        # planned concept first (it is once statistics exist), out of id order: 5x the work.
        "SELECT t.id, t.body FROM text AS t "
        "CROSS JOIN revision AS r ON r.id = t.revision_id "
        "CROSS JOIN concept AS c ON c.id = r.concept_id "
        "WHERE c.status = 'canonical' AND t.id > ? ORDER BY t.id LIMIT ?",
    ),
    (
        "document_text_fts",
        "document_text_bigram",
        "SELECT id, body FROM document_text WHERE id > ? ORDER BY id LIMIT ?",
    ),
)
"""(trigram table, bigram table, rows of their content after an id, in id order)."""

SEARCH_CHUNK_ROWS: Final = 20_000


def search_index_chunks(
    conn: sqlite3.Connection, chunk_rows: int | None = None
) -> Iterator[tuple[str, str, list[tuple[int, str]]]]:
    """(trigram table, bigram table, rows) for every chunk of the searchable content, in
    id order: what :func:`rebuild_search_indexes` inserts, chunk by chunk. A process that
    cuts the bigrams from a copy of the database walks the same chunks (ADR 0028), given
    the same ``chunk_rows`` (default :data:`SEARCH_CHUNK_ROWS`, read at call time)."""
    size = SEARCH_CHUNK_ROWS if chunk_rows is None else chunk_rows
    for trigram, bigram, rows_sql in _SEARCH_SOURCES:
        last = 0
        while rows := conn.execute(rows_sql, (last, size)).fetchall():
            last = rows[-1][0]
            yield trigram, bigram, rows


def search_chunk_rows() -> int:
    """Rows per search-index chunk, as this module holds it now (tests make it small)."""
    return SEARCH_CHUNK_ROWS


def chunk_bigrams(rows: list[tuple[int, str]]) -> list[str]:
    """The index bigrams of a chunk's rows (one string each), as the bigram tables hold them."""
    return index_bigrams([row[1] for row in rows])


def rebuild_search_indexes(
    conn: sqlite3.Connection,
    *,
    bigrams: Callable[[list[tuple[int, str]]], list[str]] = chunk_bigrams,
) -> None:
    """Fill the trigram and bigram indexes once, from the loaded tables, in id order.

    Rows are read a chunk at a time and inserted into both kinds of index (the same content
    as FTS5's 'rebuild', without its read through the view). ``bigrams`` gives a chunk's
    bigram strings: by default cut here; the builder may take them from a process that cut
    them from a copy of the file meanwhile (ADR 0028). The statements are the same either
    way, and so is the file. Cutting in worker processes fed by this one was measured
    slower on two cores: shipping the rows costs about what the cutting does (ADR 0008).
    """
    conn.create_function("pmgs_bigrams", 1, bigram_tokens, deterministic=True)
    own_transaction = not conn.in_transaction
    if own_transaction:
        conn.execute("BEGIN")
    for trigram, bigram, rows in search_index_chunks(conn):
        # Table names come from the constant above, never from input.
        insert_trigram = f"INSERT INTO {trigram} (rowid, body) VALUES (?, ?)"  # noqa: S608
        insert_bigram = f"INSERT INTO {bigram} (rowid, grams) VALUES (?, ?)"  # noqa: S608
        conn.executemany(insert_trigram, rows)
        grams = bigrams(rows)
        conn.executemany(insert_bigram, zip([row[0] for row in rows], grams, strict=True))
    if own_transaction:
        conn.execute("COMMIT")
