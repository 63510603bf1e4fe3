"""What only the builder needs from pmgs-core: the schema's DDL and indexes, how the search
index is cut and folded, the readers of the package's own notations, and writing the data
directory's pointer.

These are the other half of the store's contract (the builder writes what the store reads),
so they live beside the store; but a user who installs pmgs-core to read a database needs
none of them, and every name exported from :mod:`pmgs_core` is a promise to that user. So
they are exported here instead, and the import contracts let pmgs-build (and the test kit
that checks its output) import this module while every other package is held to
``pmgs_core``'s ``__all__`` (ADR 0030).
"""

from pmgs_core.datadir import check_pointer_metadata, content_addressed_path, write_current_pointer
from pmgs_core.notation import ipc_code_from_pdf_name, parse_ipc_version
from pmgs_core.schema import (
    TABLES,
    bigram_tokens,
    chunk_bigrams,
    create_indexes,
    create_schema,
    fold_for_search,
    is_indexed_bigram,
    rebuild_search_indexes,
    search_chunk_rows,
    search_index_chunks,
)
from pmgs_core.search._codes import TEXT_RANGES_KEY, recorded_text_ranges

__all__ = [
    "TABLES",
    "TEXT_RANGES_KEY",
    "bigram_tokens",
    "check_pointer_metadata",
    "chunk_bigrams",
    "content_addressed_path",
    "create_indexes",
    "create_schema",
    "fold_for_search",
    "ipc_code_from_pdf_name",
    "is_indexed_bigram",
    "parse_ipc_version",
    "rebuild_search_indexes",
    "recorded_text_ranges",
    "search_chunk_rows",
    "search_index_chunks",
    "write_current_pointer",
]
